/**
 * Interoperability with zeep (Python): a client generated from our WSDL and the XSD it
 * imports calls every operation against a real server. Needs Debian's python3-zeep at
 * /usr/bin/python3; skipped with a warning without it, but required when CI=true.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { testServer } from "../helpers/app.ts";
import { pythonModule, runPython } from "../helpers/python.ts";

const SCRIPT = join(import.meta.dirname!, "zeep_client.py");
const zeep = await pythonModule("zeep", "the zeep SOAP interoperability test");

Deno.test({
  name: "soap: a zeep client generated from the WSDL calls every operation",
  ignore: zeep.ignore,
  async fn() {
    zeep.require();
    const t = await testServer();
    try {
      const out = await runPython(SCRIPT, [t.baseUrl]);
      const r = JSON.parse(out);

      assert.deepEqual(r.helloServices, ["HelloWorldService"]);
      assert.deepEqual(r.loanServices, ["LoanApprovalService"]);
      // The types zeep compiled from the imported schema documents.
      assert.deepEqual(r.types, {
        getHelloWorld: "ns0:getHelloWorld(arg0: xsd:string)",
        getHelloWorldResponse: "ns0:getHelloWorldResponse(return: xsd:string)",
        registerNewCustomer: "ns0:registerNewCustomer(arg0: ns0:customerRegistrationRequest)",
        customerRegistrationRequest:
          "ns0:customerRegistrationRequest(customerName: xsd:string, blacklisted: xsd:boolean)",
        registerNewCustomerResponse: "ns0:registerNewCustomerResponse(return: xsd:string)",
        processLoanApplication: "ns0:processLoanApplication(arg0: ns0:loanRequest)",
        loanRequest:
          "ns0:loanRequest(applicantName: xsd:string, requestedAmount: xsd:int, creditScore: xsd:int)",
        processLoanApplicationResponse:
          "ns0:processLoanApplicationResponse(return: ns0:loanResponse)",
        loanResponse: "ns0:loanResponse(approved: xsd:boolean, approvedRate: xsd:double, " +
          "rejectionReason: xsd:string, message: xsd:string)",
      });

      assert.equal(r.hello, "Hello World, Alice!");
      assert.deepEqual(r.helloEmpty, {
        raised: "Fault",
        message: "Name cannot be null or empty",
        code: r.helloEmpty.code,
        hasDetail: false,
      });
      assert.match(r.helloEmpty.code, /^(\w+:)?Server$/);

      assert.equal(r.registerZed, "Registration Successful");
      assert.equal(r.registerZedAgain, "Error: Customer already exists");
      assert.equal(r.registerAnn, "Registration Successful");

      assert.deepEqual(r.loanAnn, {
        approved: { value: true, type: "bool" },
        approvedRate: { value: 3.5, type: "float" },
        rejectionReason: { value: null, type: "NoneType" },
        message: { value: "Loan approved with excellent rate", type: "str" },
      });
      assert.deepEqual(r.loanZed, {
        approved: { value: false, type: "bool" },
        approvedRate: { value: 0, type: "float" },
        rejectionReason: { value: "Applicant is blacklisted", type: "str" },
        message: { value: "Loan application rejected", type: "str" },
      });
      assert.deepEqual(r.loanNobody, {
        approved: { value: true, type: "bool" },
        approvedRate: { value: 3.5, type: "float" },
        rejectionReason: { value: null, type: "NoneType" },
        message: { value: "Loan approved with excellent rate", type: "str" },
      });

      assert.deepEqual(r.loanZeroAmount, {
        raised: "Fault",
        message: "Requested amount must be greater than 0",
        code: r.loanZeroAmount.code,
        hasDetail: false,
      });
      assert.match(r.loanZeroAmount.code, /^(\w+:)?Server$/);

      // What the server stored: three decisions (the fault stored nothing), two customers.
      const history = await t.sql.all(
        "SELECT applicant_name, requested_amount, approved, approved_rate, rejection_reason " +
          "FROM loan_history ORDER BY id",
      );
      assert.deepEqual(history.map((row) => ({ ...row })), [
        {
          applicant_name: "Ann",
          requested_amount: 25000,
          approved: 1,
          approved_rate: 3.5,
          rejection_reason: null,
        },
        {
          applicant_name: "Zed",
          requested_amount: 10000,
          approved: 0,
          approved_rate: 0,
          rejection_reason: "Applicant is blacklisted",
        },
        {
          applicant_name: "Nobody",
          requested_amount: 500,
          approved: 1,
          approved_rate: 3.5,
          rejection_reason: null,
        },
      ]);
      const customers = await t.sql.all(
        "SELECT customer_name, is_blacklisted FROM customers ORDER BY customer_name",
      );
      assert.deepEqual(customers.map((row) => ({ ...row })), [
        { customer_name: "Ann", is_blacklisted: 0 },
        { customer_name: "Zed", is_blacklisted: 1 },
      ]);
    } finally {
      await t.close();
    }
  },
});
