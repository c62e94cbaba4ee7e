/** Helpers for SOAP tests: envelopes and posting them to the app in process. */
import type { TestApp } from "./app.ts";

/** The directory of the reference request/response pairs. */
export const REFERENCE_DIR = new URL("../fixtures/soap-reference/", import.meta.url);

/** Wraps `body` in a SOAP 1.1 envelope declaring the `soap:` prefix for the service. */
export function envelope(body: string, ns = "http://soap.example.com/"): string {
  return `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ` +
    `xmlns:soap="${ns}"><soapenv:Header/><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`;
}

/** Posts `body` to `path` as `text/xml` and returns status, content type and text. */
export async function post(
  t: TestApp,
  path: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; text: string; headers: Headers }> {
  const res = await t.app.request(path, {
    method: "POST",
    headers: { "content-type": "text/xml; charset=utf-8", soapaction: '""', ...headers },
    body: body as BodyInit,
  });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    text: await res.text(),
    headers: res.headers,
  };
}

/** A registration envelope. */
export function registration(name: string, blacklisted?: boolean): string {
  const flag = blacklisted === undefined ? "" : `<blacklisted>${blacklisted}</blacklisted>`;
  return envelope(
    `<soap:registerNewCustomer><arg0><customerName>${name}</customerName>${flag}</arg0></soap:registerNewCustomer>`,
  );
}

/** A loan application envelope; `amount` is written as given. */
export function application(name: string, amount: string | number): string {
  return envelope(
    `<soap:processLoanApplication><arg0><applicantName>${name}</applicantName>` +
      `<requestedAmount>${amount}</requestedAmount></arg0></soap:processLoanApplication>`,
  );
}

/** Counts rows of a loan table. */
export function count(t: TestApp, table: "customers" | "loan_history"): Promise<number> {
  return t.sql.count(table);
}

/** Extracts the faultstring of a fault envelope. */
export function faultString(text: string): string | undefined {
  return /<faultstring>([\s\S]*)<\/faultstring>/.exec(text)?.[1];
}

/** Extracts the faultcode of a fault envelope. */
export function faultCode(text: string): string | undefined {
  return /<faultcode>([\s\S]*)<\/faultcode>/.exec(text)?.[1];
}
