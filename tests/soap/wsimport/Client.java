// Calls every operation through the classes that wsimport generated from the server's WSDL
// (packages gen.hello and gen.loan), as a Java client of the original service would, and prints
// one line per observation, "key=value", for tests/soap/wsimport_test.ts to check.
// Usage: java Client <baseUrl> <repeats>

import gen.hello.HelloWorld;
import gen.hello.HelloWorldService;
import gen.loan.CustomerRegistrationRequest;
import gen.loan.LoanApprovalService;
import gen.loan.LoanApprovalService_Service;
import gen.loan.LoanRequest;
import gen.loan.LoanResponse;
import java.net.URL;
import javax.xml.ws.soap.SOAPFaultException;

public class Client {
  interface Call {
    Object run() throws Exception;
  }

  static void show(String key, Object value) {
    System.out.println(key + "=" + value);
  }

  /** The fault's string when `call` raises a SOAP fault; "no fault: <result>" otherwise. */
  static String fault(Call call) throws Exception {
    try {
      return "no fault: " + call.run();
    } catch (SOAPFaultException e) {
      return e.getFault().getFaultString();
    }
  }

  static LoanRequest loan(String name, int amount, Integer score) {
    LoanRequest request = new LoanRequest();
    request.setApplicantName(name);
    request.setRequestedAmount(amount);
    request.setCreditScore(score);
    return request;
  }

  static String describe(LoanResponse r) {
    return r.isApproved() + "|" + r.getApprovedRate() + "|" + r.getRejectionReason() + "|"
        + r.getMessage();
  }

  public static void main(String[] args) throws Exception {
    String base = args[0];
    int repeats = Integer.parseInt(args[1]);
    // The WSDL is read from the server at run time, as a deployed client reads it.
    HelloWorld hello = new HelloWorldService(new URL(base + "/hello?wsdl")).getHelloWorldPort();
    LoanApprovalService loans =
        new LoanApprovalService_Service(new URL(base + "/loan?wsdl")).getLoanApprovalServicePort();

    show("hello", hello.getHelloWorld("Alice"));
    show("helloEmpty", fault(() -> hello.getHelloWorld("")));

    CustomerRegistrationRequest zed = new CustomerRegistrationRequest();
    zed.setCustomerName("Zed");
    zed.setBlacklisted(true);
    show("registerZed", loans.registerNewCustomer(zed));
    show("registerZedAgain", loans.registerNewCustomer(zed));
    CustomerRegistrationRequest nameless = new CustomerRegistrationRequest();
    nameless.setCustomerName("");
    show("registerEmpty", fault(() -> loans.registerNewCustomer(nameless)));

    show("loanAnn", describe(loans.processLoanApplication(loan("Ann", 10000, 750))));
    show("loanZed", describe(loans.processLoanApplication(loan("Zed", 10000, 750))));
    show("loanNoScore", describe(loans.processLoanApplication(loan("Bo", 5000, null))));
    show("loanZero", fault(() -> loans.processLoanApplication(loan("Ann", 0, 700))));

    // The same calls again (each over a connection of its own when keep-alive is off, so
    // spread among the server's isolates): the answers never differ.
    java.util.Set<String> greetings = new java.util.TreeSet<>();
    java.util.Set<String> decisions = new java.util.TreeSet<>();
    for (int i = 0; i < repeats; i++) {
      greetings.add(hello.getHelloWorld("Bo"));
      decisions.add(describe(loans.processLoanApplication(loan("Cy" + i, 20000, 700))));
    }
    show("greetings", greetings);
    show("decisions", decisions);
  }
}
