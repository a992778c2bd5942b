// A third-party MCP client for the tests: the official TypeScript SDK's client connects
// to Finledger's MCP server over streamable HTTP with an API key, lists the tools,
// records an expense with create_transaction (in the key's default wallet) and prints
// what it saw as one JSON object: {"tools": [names], "result": the call's result}.
//
// Usage: node tools/mcpclient/client.mjs <MCP endpoint URL> <API key>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [endpoint, key] = process.argv.slice(2);
if (!endpoint || !key) {
  console.error("usage: node client.mjs <MCP endpoint URL> <API key>");
  process.exit(2);
}

const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const client = new Client({ name: "finledger-ts-sdk-check", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({
  name: "create_transaction",
  arguments: { type: "expense", amount: 12.34, concept: "Coffee, recorded by the TypeScript SDK" },
});
await client.close();
console.log(JSON.stringify({ tools: tools.map((t) => t.name), result }));
