"""Drives the SOAP services with a zeep client generated from their WSDL.

Usage: zeep_client.py <baseUrl>

Builds clients from <baseUrl>/hello?wsdl and <baseUrl>/loan?wsdl (so the imported XSD
is fetched and compiled too), calls every operation and prints one JSON object with what
it observed. Run by tests/soap/zeep_test.ts, which checks the values.
"""

import json
import sys

import requests
import zeep
import zeep.exceptions
import zeep.transports


def fault_of(call):
    """Runs `call`, expecting a SOAP fault; returns what zeep reported."""
    try:
        result = call()
    except zeep.exceptions.Fault as fault:
        return {
            "raised": "Fault",
            "message": fault.message,
            "code": fault.code,
            "hasDetail": fault.detail is not None,
        }
    return {"raised": None, "result": serialize(result)}


def serialize(value):
    """A JSON-ready view of a zeep result, with the Python type of each field."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return {
        name: {"value": value[name], "type": type(value[name]).__name__}
        for name in value
    }


def main(base_url):
    session = requests.Session()
    try:
        transport = zeep.transports.Transport(session=session, cache=None, timeout=10)
        settings = zeep.Settings(strict=True)
        hello = zeep.Client(f"{base_url}/hello?wsdl", transport=transport, settings=settings)
        loan = zeep.Client(f"{base_url}/loan?wsdl", transport=transport, settings=settings)

        out = {
            "helloServices": sorted(hello.wsdl.services.keys()),
            "loanServices": sorted(loan.wsdl.services.keys()),
            "types": type_signatures(hello) | type_signatures(loan),
        }
        out["hello"] = hello.service.getHelloWorld("Alice")
        out["helloEmpty"] = fault_of(lambda: hello.service.getHelloWorld(""))

        out["registerZed"] = loan.service.registerNewCustomer(
            {"customerName": "Zed", "blacklisted": True}
        )
        out["registerZedAgain"] = loan.service.registerNewCustomer(
            {"customerName": "Zed", "blacklisted": True}
        )
        out["registerAnn"] = loan.service.registerNewCustomer(
            {"customerName": "Ann", "blacklisted": False}
        )

        out["loanAnn"] = serialize(
            loan.service.processLoanApplication({"applicantName": "Ann", "requestedAmount": 25000})
        )
        out["loanZed"] = serialize(
            loan.service.processLoanApplication({"applicantName": "Zed", "requestedAmount": 10000})
        )
        out["loanNobody"] = serialize(
            loan.service.processLoanApplication({"applicantName": "Nobody", "requestedAmount": 500})
        )
        out["loanZeroAmount"] = fault_of(
            lambda: loan.service.processLoanApplication({"applicantName": "Ann", "requestedAmount": 0})
        )
    finally:
        session.close()
    print(json.dumps(out))


def type_signatures(client):
    """The signature zeep compiled for each type of the service's own schema."""
    return {
        t.qname.localname: t.signature(schema=client.wsdl.types)
        for t in client.wsdl.types.types
        if t.qname is not None and t.qname.namespace != "http://www.w3.org/2001/XMLSchema"
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: zeep_client.py <baseUrl>")
    main(sys.argv[1])
