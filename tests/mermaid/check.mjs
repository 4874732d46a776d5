// Reads a Mermaid diagram on stdin and parses it with mermaid.parse(); exit 1 with the error on failure.
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });

let text = '';
for await (const chunk of process.stdin) text += chunk;
try {
  const result = await mermaid.parse(text);
  console.log(JSON.stringify(result));
} catch (error) {
  console.error(String((error && error.message) || error));
  process.exit(1);
}
