/** The three operations' rules as seen on the wire, and what each stores. */
import assert from "node:assert/strict";
import { testApp, testServer } from "../helpers/app.ts";
import {
  application,
  count,
  envelope,
  faultCode,
  faultString,
  post,
  registration,
} from "../helpers/soap.ts";

const hello = (inner: string) => envelope(`<soap:getHelloWorld>${inner}</soap:getHelloWorld>`);

Deno.test("getHelloWorld greets the name, escaping only &, < and >, writing the rest as UTF-8", async () => {
  const t = await testApp();
  try {
    const res = await post(t, "/hello", hello("<arg0>山田 &amp; &lt;Ann&gt; \"'</arg0>"));
    assert.equal(res.status, 200);
    assert.ok(
      res.text.includes(`<return>Hello World, 山田 &amp; &lt;Ann&gt; "'!</return>`),
      res.text,
    );
  } finally {
    await t.close();
  }
});

Deno.test("getHelloWorld with a missing, empty or qualified arg0 is the name fault", async () => {
  const t = await testApp();
  try {
    for (
      const inner of [
        "",
        "<arg0></arg0>",
        "<arg0/>",
        "<soap:arg0>Ann</soap:arg0>",
        "<name>Ann</name>",
      ]
    ) {
      const res = await post(t, "/hello", hello(inner));
      assert.equal(res.status, 500, inner);
      assert.equal(faultCode(res.text), "S:Server", inner);
      assert.equal(faultString(res.text), "Name cannot be null or empty", inner);
    }
  } finally {
    await t.close();
  }
});

Deno.test("getHelloWorld ignores unknown children, Header blocks and SOAPAction, with any prefix", async () => {
  const t = await testApp();
  try {
    const body = `<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/">` +
      `<e:Header><a:To xmlns:a="http://www.w3.org/2005/08/addressing">x</a:To></e:Header>` +
      `<e:Body><g:getHelloWorld xmlns:g="http://soap.example.com/"><extra>1</extra>` +
      `<arg0><![CDATA[Bo<b>]]></arg0></g:getHelloWorld></e:Body></e:Envelope>`;
    for (
      const action of [
        '""',
        "",
        '"http://soap.example.com/HelloWorld/getHelloWorldRequest"',
        "nonsense",
      ]
    ) {
      const res = await post(t, "/hello", body, { soapaction: action });
      assert.equal(res.status, 200, action);
      assert.ok(res.text.includes("<return>Hello World, Bo&lt;b&gt;!</return>"), res.text);
    }
  } finally {
    await t.close();
  }
});

Deno.test("GET on an endpoint without a query answers a page naming the service and its WSDL", async () => {
  const t = await testApp();
  try {
    const res = await t.app.request("http://example.test/loan");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    const text = await res.text();
    assert.match(text, /LoanApprovalService/);
    assert.match(text, /href="http:\/\/example.test\/loan\?wsdl"/);
  } finally {
    await t.close();
  }
});

Deno.test("registerNewCustomer stores the name, the flag (false when omitted) and the time", async () => {
  const t = await testApp();
  try {
    assert.match(
      (await post(t, "/loan", registration("Ann"))).text,
      /<return>Registration Successful</,
    );
    assert.match(
      (await post(t, "/loan", registration("Bob", true))).text,
      /Registration Successful/,
    );
    // Names compare exactly: another case is another customer.
    assert.match((await post(t, "/loan", registration("ann"))).text, /Registration Successful/);
    const dup = await post(t, "/loan", registration("Bob", false));
    assert.equal(dup.status, 200);
    assert.match(dup.text, /<return>Error: Customer already exists<\/return>/);
    const rows = await t.sql.all("SELECT * FROM customers ORDER BY customer_name");
    assert.deepEqual(rows.map((r) => ({ ...r })), [
      { customer_name: "Ann", is_blacklisted: 0, registered_at: "2026-11-22T08:30:00.000Z" },
      { customer_name: "Bob", is_blacklisted: 1, registered_at: "2026-11-22T08:30:00.000Z" },
      { customer_name: "ann", is_blacklisted: 0, registered_at: "2026-11-22T08:30:00.000Z" },
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("registerNewCustomer with a missing arg0 or a missing, empty or blank name is a fault", async () => {
  const t = await testApp();
  try {
    const bodies = [
      envelope("<soap:registerNewCustomer/>"),
      envelope(
        "<soap:registerNewCustomer><arg0><blacklisted>true</blacklisted></arg0></soap:registerNewCustomer>",
      ),
      registration(""),
      registration("   "),
      registration("\t\n"),
    ];
    for (const body of bodies) {
      const res = await post(t, "/loan", body);
      assert.equal(res.status, 500);
      assert.equal(faultCode(res.text), "S:Server");
      assert.equal(faultString(res.text), "Customer name cannot be null or empty");
    }
    assert.equal(await count(t, "customers"), 0);
  } finally {
    await t.close();
  }
});

Deno.test("processLoanApplication with a missing or blank applicant is the applicant fault", async () => {
  const t = await testApp();
  try {
    for (
      const body of [
        application("", 100),
        application("  ", 100),
        envelope("<soap:processLoanApplication/>"),
        // The name is checked before the amount.
        application("", 0),
      ]
    ) {
      const res = await post(t, "/loan", body);
      assert.equal(res.status, 500);
      assert.equal(faultString(res.text), "Applicant name cannot be null or empty");
    }
    assert.equal(await count(t, "loan_history"), 0);
  } finally {
    await t.close();
  }
});

Deno.test("processLoanApplication ignores a creditScore in the request and treats unregistered applicants as not blacklisted", async () => {
  const t = await testApp();
  try {
    const body = application("Nobody", "+2147483647").replace(
      "</requestedAmount>",
      "</requestedAmount><creditScore>100</creditScore>",
    );
    const res = await post(t, "/loan", body);
    assert.equal(res.status, 200);
    assert.ok(
      res.text.includes(
        "<return><approved>true</approved><approvedRate>3.5</approvedRate>" +
          "<message>Loan approved with excellent rate</message></return>",
      ),
      res.text,
    );
    const row = await t.sql.get("SELECT requested_amount, rejection_reason FROM loan_history");
    assert.deepEqual({ ...row }, { requested_amount: 2147483647, rejection_reason: null });
  } finally {
    await t.close();
  }
});

Deno.test("fifty concurrent registrations of one new name give exactly one success", async () => {
  const t = await testServer();
  try {
    const results = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await fetch(`${t.baseUrl}/loan`, {
          method: "POST",
          headers: { "content-type": "text/xml; charset=utf-8" },
          body: registration("Racer"),
        });
        return await res.text();
      }),
    );
    assert.equal(results.filter((r) => r.includes("Registration Successful")).length, 1);
    assert.equal(results.filter((r) => r.includes("Error: Customer already exists")).length, 49);
    assert.equal(await count(t, "customers"), 1);
  } finally {
    await t.close();
  }
});

Deno.test("concurrent applications each get a stored decision before their answer", async () => {
  const t = await testServer();
  try {
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const res = await fetch(`${t.baseUrl}/loan`, {
          method: "POST",
          headers: { "content-type": "text/xml; charset=utf-8" },
          body: application(`Applicant ${i}`, i + 1),
        });
        const text = await res.text();
        // The decision must already be durable when its answer arrives.
        const stored = await t.sql.count("loan_history WHERE applicant_name = ?", [
          `Applicant ${i}`,
        ]);
        return { status: res.status, stored, text };
      }),
    );
    for (const a of answers) {
      assert.equal(a.status, 200);
      assert.equal(a.stored, 1);
    }
    assert.equal(await count(t, "loan_history"), 40);
  } finally {
    await t.close();
  }
});
