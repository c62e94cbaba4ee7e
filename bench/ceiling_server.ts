/**
 * The ceiling of the SOAP benchmark: the least work a Deno HTTP server can do per request.
 * Answers every request with a fixed body the size of a `getHelloWorld` response.
 *
 * Usage: `deno run --allow-net bench/ceiling_server.ts [port]` (port 0 or none: any free one).
 */

const BODY = "<?xml version='1.0' encoding='UTF-8'?><S:Envelope " +
  'xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><ns2:getHelloWorldResponse ' +
  'xmlns:ns2="http://soap.example.com/"><return>Hello World, Alice!</return>' +
  "</ns2:getHelloWorldResponse></S:Body></S:Envelope>";

const port = Number(Deno.args[0] ?? "0");
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid port ${JSON.stringify(Deno.args[0])}`);
  Deno.exit(2);
}

Deno.serve({
  port,
  hostname: "127.0.0.1",
  onListen: ({ hostname, port }) => console.log(`listening on http://${hostname}:${port}`),
}, () => new Response(BODY));
