/**
 * The HTTP side of the SOAP services: documents on GET, envelopes on POST. Works on plain
 * `Request`/`Response`, so the router only mounts it.
 */
import { DomainError, isStorageFull, STORAGE_FULL_MESSAGE } from "../domain/kernel/errors.ts";
import { greet } from "../domain/loan/greeting.ts";
import type { LoanService } from "../domain/loan/loan.ts";
import {
  decodeRequest,
  encodeFault,
  type FaultCode,
  responseEncoder,
  SoapFault,
  type SoapValue,
} from "./codec.ts";
import { HELLO_SERVICE, LOAN_SERVICE, type ServiceDescription } from "./description.ts";
import { readEnvelope } from "./envelope_body.ts";
import { CLIENT_GONE_STATUS, isClientGone } from "./http_body.ts";
import { renderWsdl, renderXsd } from "./wsdl.ts";
import { type XmlElement, XmlError } from "./xml.ts";
import { escapeAttribute, escapeText } from "./xml_writer.ts";

/** Largest accepted envelope. */
export const MAX_ENVELOPE_BYTES = 1024 * 1024;

/** What an operation is given and answers, in decoded values. */
export type OperationImpl = (arg0: SoapValue) => SoapValue | Promise<SoapValue>;

/** Settings shared by the endpoints. */
export interface SoapOptions {
  namespace: string;
  /** Public base address (no trailing slash), or null to use the request's origin. */
  baseUrl: string | null;
  /** Called with unexpected errors (never sent to the client). */
  onError?: (error: unknown) => void;
  /** Called when a client goes away before its body is read (not an error). */
  onClientGone?: () => void;
  /** Called for each call answered: its operation (`unknown` when unreadable) and outcome. */
  onCall?: (operation: string, outcome: "ok" | "fault") => void;
  /**
   * Called for each loan decision recorded: whether approved, and why (the decision table's
   * fixed message or rejection reason, a small fixed set).
   */
  onLoanDecision?: (approved: boolean, reason: string) => void;
}

/** A request handler for one endpoint. */
export type SoapHandler = (request: Request) => Promise<Response>;

const XML_TYPE = "text/xml; charset=utf-8";

/** The `/hello` and `/loan` handlers, bound to the domain rules. */
export function soapEndpoints(
  loan: LoanService,
  options: SoapOptions,
): { hello: SoapHandler; loan: SoapHandler } {
  const field = (value: SoapValue, name: string): SoapValue =>
    value !== null && typeof value === "object" ? value[name] ?? null : null;
  const text = (value: SoapValue): string | null => typeof value === "string" ? value : null;
  return {
    hello: soapEndpoint(HELLO_SERVICE, {
      getHelloWorld: (arg0) => greet(text(arg0)),
    }, options),
    loan: soapEndpoint(LOAN_SERVICE, {
      registerNewCustomer: (arg0) =>
        loan.registerNewCustomer({
          customerName: text(field(arg0, "customerName")),
          blacklisted: field(arg0, "blacklisted") as boolean | null,
        }),
      processLoanApplication: async (arg0) => {
        const amount = field(arg0, "requestedAmount");
        const decision = await loan.processLoanApplication({
          applicantName: text(field(arg0, "applicantName")),
          requestedAmount: typeof amount === "number" ? amount : null,
        });
        options.onLoanDecision?.(
          decision.approved,
          decision.rejectionReason ?? decision.message,
        );
        return { ...decision };
      },
    }, options),
  };
}

/** A handler serving `service` with the operation implementations `impl`. */
export function soapEndpoint(
  service: ServiceDescription,
  impl: Record<string, OperationImpl>,
  options: SoapOptions,
): SoapHandler {
  const xsd = renderXsd(service, options.namespace);
  const wsdlByAddress = new Map<string, string>();
  const encoders = new Map(
    service.operations.map((op) => [op.name, responseEncoder(service, op, options.namespace)]),
  );

  function address(url: URL): string {
    return `${options.baseUrl ?? url.origin}${service.path}`;
  }

  function get(url: URL): Response {
    const query = url.search.slice(1);
    if (query.toLowerCase() === "wsdl") {
      const at = address(url);
      let wsdl = wsdlByAddress.get(at);
      if (wsdl === undefined) {
        wsdl = renderWsdl(service, options.namespace, at);
        if (wsdlByAddress.size < 16) wsdlByAddress.set(at, wsdl);
      }
      return new Response(wsdl, { headers: { "content-type": XML_TYPE } });
    }
    if (url.searchParams.has("xsd")) {
      return url.searchParams.get("xsd") === "1"
        ? new Response(xsd, { headers: { "content-type": XML_TYPE } })
        : new Response("Not Found", { status: 404, headers: { "content-type": "text/plain" } });
    }
    return new Response(infoPage(service, address(url)), {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  }

  async function post(request: Request): Promise<Response> {
    const charset = xmlCharset(request.headers.get("content-type"));
    if (charset === null) {
      await request.body?.cancel();
      return new Response(null, { status: 415 });
    }
    let root: XmlElement | null;
    try {
      root = await readEnvelope(request, charset, MAX_ENVELOPE_BYTES);
    } catch (error) {
      if (!isClientGone(error)) return faultResponse(error);
      options.onClientGone?.();
      return new Response(null, { status: CLIENT_GONE_STATUS });
    }
    if (root === null) return new Response(null, { status: 413 });
    let name = "unknown";
    try {
      const call = decodeRequest(root, service, options.namespace);
      name = call.operation.name;
      const answer = impl[name]!(call.arg0);
      // A synchronous operation (getHelloWorld) is answered without waiting for a tick.
      const result = answer instanceof Promise ? await answer : answer;
      const response = xml(encoders.get(name)!(result), 200);
      options.onCall?.(name, "ok");
      return response;
    } catch (error) {
      options.onCall?.(name, "fault");
      return faultResponse(error);
    }
  }

  function faultResponse(error: unknown): Response {
    let code: FaultCode = "Server";
    let message = "Internal server error";
    if (error instanceof SoapFault) {
      code = error.code;
      message = error.message;
    } else if (error instanceof XmlError) {
      code = "Client";
      message = `Cannot read SOAP message: ${error.message}`;
    } else if (error instanceof DomainError) {
      message = error.message;
    } else {
      if (isStorageFull(error)) message = STORAGE_FULL_MESSAGE;
      options.onError?.(error);
    }
    return xml(encodeFault(code, message), 500);
  }

  return (request) => {
    const method = request.method;
    if (method === "POST") return post(request);
    if (method === "GET") {
      // Deno builds the address from the Host header as sent (the front door refuses a bad
      // one; this handler does not count on it).
      const url = URL.parse(request.url);
      return Promise.resolve(url ? get(url) : new Response(null, { status: 400 }));
    }
    return Promise.resolve(
      new Response(null, { status: 405, headers: { allow: "GET, POST" } }),
    );
  };
}

function xml(body: string, status: number): Response {
  return new Response(body, { status, headers: { "content-type": XML_TYPE } });
}

/** The charset of a `text/xml` content type ("utf-8" when absent), or null for another type. */
function xmlCharset(contentType: string | null): string | null {
  if (contentType === null) return null;
  if (contentType === XML_TYPE) return "utf-8"; // what most clients send
  const [type, ...params] = contentType.split(";");
  if (type!.trim().toLowerCase() !== "text/xml") return null;
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq > 0 && param.slice(0, eq).trim().toLowerCase() === "charset") {
      return param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1").toLowerCase() || "utf-8";
    }
  }
  return "utf-8";
}

function infoPage(service: ServiceDescription, address: string): string {
  const name = escapeText(service.serviceName);
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${name}</title>` +
    `</head><body><h1>${name}</h1><p>SOAP 1.1 endpoint: <code>${escapeText(address)}</code></p>` +
    `<p>WSDL: <a href="${escapeAttribute(address)}?wsdl">${escapeText(address)}?wsdl</a></p>` +
    `</body></html>`;
}
