/**
 * The one description of both SOAP services: their names, operations and types. The WSDL
 * and XSD documents are generated from it, and the codec decodes requests and encodes
 * responses with it, so the documents and the wire can never disagree.
 */

/** An XML Schema simple type, or the name of one of the service's complex types. */
export type FieldType = "string" | "boolean" | "int" | "double" | { complex: string };

/** One element of a sequence. */
export interface Field {
  name: string;
  type: FieldType;
  /** Whether the element may be absent (`minOccurs="0"`). */
  optional: boolean;
}

/** A named complex type: a sequence of unqualified elements. */
export interface ComplexType {
  name: string;
  fields: Field[];
}

/** One document/literal wrapped operation: `{op}(arg0)` answers `{op}Response(return)`. */
export interface OperationDescription {
  name: string;
  input: Field;
  output: Field;
}

/** One service as JAX-WS would publish it. */
export interface ServiceDescription {
  path: string;
  serviceName: string;
  portName: string;
  portTypeName: string;
  bindingName: string;
  /** In declaration order (the WSDL's order); the XSD sorts by name. */
  operations: OperationDescription[];
  types: ComplexType[];
}

const string = (name: string): Field => ({ name, type: "string", optional: true });

/** The greeting service at `/hello`. */
export const HELLO_SERVICE: ServiceDescription = {
  path: "/hello",
  serviceName: "HelloWorldService",
  portName: "HelloWorldPort",
  portTypeName: "HelloWorld",
  bindingName: "HelloWorldPortBinding",
  operations: [{ name: "getHelloWorld", input: string("arg0"), output: string("return") }],
  types: [],
};

/** The loan approval service at `/loan`. */
export const LOAN_SERVICE: ServiceDescription = {
  path: "/loan",
  serviceName: "LoanApprovalService",
  portName: "LoanApprovalServicePort",
  portTypeName: "LoanApprovalService",
  bindingName: "LoanApprovalServicePortBinding",
  operations: [
    {
      name: "registerNewCustomer",
      input: { name: "arg0", type: { complex: "customerRegistrationRequest" }, optional: true },
      output: string("return"),
    },
    {
      name: "processLoanApplication",
      input: { name: "arg0", type: { complex: "loanRequest" }, optional: true },
      output: { name: "return", type: { complex: "loanResponse" }, optional: true },
    },
  ],
  types: [
    {
      name: "customerRegistrationRequest",
      fields: [string("customerName"), { name: "blacklisted", type: "boolean", optional: true }],
    },
    {
      name: "loanRequest",
      fields: [
        string("applicantName"),
        { name: "requestedAmount", type: "int", optional: false },
        { name: "creditScore", type: "int", optional: true },
      ],
    },
    {
      name: "loanResponse",
      fields: [
        { name: "approved", type: "boolean", optional: false },
        { name: "approvedRate", type: "double", optional: false },
        string("rejectionReason"),
        string("message"),
      ],
    },
  ],
};

/** Finds a complex type of `service` by name. */
export function complexType(service: ServiceDescription, name: string): ComplexType {
  const type = service.types.find((t) => t.name === name);
  if (!type) throw new Error(`Cannot describe ${service.serviceName}: no type ${name}`);
  return type;
}
