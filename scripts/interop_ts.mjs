// Interop check: drive tinymcp with the official MCP TypeScript SDK (@modelcontextprotocol/sdk).
// Usage: node interop_ts.mjs CONFIG SERVER_ROOT
// Must sit next to a node_modules holding the SDK (scripts/interop copies it there): ESM bare
// imports resolve from the file's own location and ignore NODE_PATH.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const [config, root] = process.argv.slice(2);
let failures = 0;
const check = (name, ok, detail = '') => {
    if (!ok) failures++;
    console.log(`${ok ? 'PASS' : 'FAIL'}: ts: ${name}${detail ? ` (${detail})` : ''}`);
};
const expectError = async (name, promise, code) => {
    try {
        await promise;
        check(name, false, 'no error raised');
    } catch (e) {
        check(name, e instanceof McpError && e.code === code, `got ${e?.name} code=${e?.code}: ${e?.message}`);
    }
};

setTimeout(() => {
    console.log('FAIL: ts: timed out after 60s');
    process.exit(1);
}, 60_000).unref();

const transport = new StdioClientTransport({
    command: 'python3',
    args: ['-m', 'tinymcp', '--config', config, '--page-size', '20'],
    // The SDK only inherits HOME/LOGNAME/PATH/SHELL/TERM/USER unless env is given.
    env: { ...getDefaultEnvironment(), PYTHONPATH: root },
    cwd: root
});
const client = new Client({ name: 'tinymcp-interop-ts', version: '1.0' });
try {
    await client.connect(transport);
    check('connect/initialize', client.getServerCapabilities()?.prompts !== undefined,
        `server=${JSON.stringify(client.getServerVersion())}`);

    let pages = 0, cursor;
    const names = [];
    do {
        const result = await client.listPrompts(cursor === undefined ? {} : { cursor });
        pages++;
        names.push(...result.prompts.map(p => p.name));
        cursor = result.nextCursor;
    } while (cursor !== undefined && pages <= 100);
    check('prompts/list walks 13 pages', pages === 13, `${pages} pages`);
    check('250 unique prompt names', names.length === 250 && new Set(names).size === 250, `${names.length} names`);

    const got = await client.getPrompt({ name: 'p007', arguments: { topic: 'x' } });
    const texts = got.messages.filter(m => m.content.type === 'text').map(m => m.content.text);
    check('prompts/get p007 renders topic=x', texts.some(t => t.includes('x') && !t.includes('{topic}')), JSON.stringify(texts));

    await expectError('unknown prompt -> -32602', client.getPrompt({ name: 'nope' }), -32602);
    await expectError('missing required arg -> -32602', client.getPrompt({ name: 'p007', arguments: {} }), -32602);
    const ref = { type: 'ref/prompt', name: 'p007' };
    let c = (await client.complete({ ref, argument: { name: 'topic', value: '' } })).completion;
    check('complete() empty value -> 100 of 250, hasMore',
        c.values.length === 100 && c.total === 250 && c.hasMore === true,
        `${c.values.length} values, total=${c.total}, hasMore=${c.hasMore}`);
    c = (await client.complete({ ref, argument: { name: 'topic', value: 'c' } })).completion;
    const exactFirst = c.values.slice(0, 50).every((v) => v.startsWith('c'))
        && !c.values.slice(50).some((v) => v.startsWith('c'));
    check("complete() 'c' -> c/C only, exact case first",
        c.values.every((v) => 'cC'.includes(v[0])) && exactFirst && c.total === 150 && c.hasMore === true,
        `${c.values.slice(0, 2)}...${c.values.slice(-2)}, total=${c.total}`);
} catch (e) {
    check('ran without unexpected error', false, String(e?.stack ?? e));
} finally {
    await client.close();
}

// The README's example folder of prompt files, served with --prompts
const examples = new URL('../docs/examples/prompts', `file://${root}/scripts/`).pathname;
const exampleGets = {
    code_review: [{ code: 'print(1)' }, 'focusing on correctness:\n\nprint(1)'],
    explain: [{ topic: 'closures' }, 'Explain closures to'],
    deploy: [{ ENV: 'staging', BRANCH: 'main' }, 'deployment of main to staging'],
    'forms:react-form': [{ formName: 'Login', fields: 'user' }, 'named Login with the fields\nuser'],
    'git:commit': [{ args: 'the fix' }, 'commit message for: the fix'],
    'git:fix-issue': [{ 'issue-number': '42', priority: 'high' }, 'Fix issue #42 with priority high'],
    summarize: [{ arguments: 'the report' }, 'Summarize the report in five bullet points'],
};
const exampleClient = new Client({ name: 'tinymcp-interop-ts-examples', version: '1.0' });
try {
    await exampleClient.connect(new StdioClientTransport({
        command: 'python3', args: ['-m', 'tinymcp', '--prompts', examples],
        env: { ...getDefaultEnvironment(), PYTHONPATH: root }, cwd: root
    }));
    const listed = (await exampleClient.listPrompts()).prompts.map((p) => p.name);
    check('examples: prompts/list names every example file',
        JSON.stringify([...listed].sort()) === JSON.stringify(Object.keys(exampleGets).sort()), JSON.stringify(listed));
    for (const [name, [args, expected]] of Object.entries(exampleGets)) {
        const got = await exampleClient.getPrompt({ name, arguments: args });
        const texts = got.messages.filter((m) => m.content.type === 'text').map((m) => m.content.text);
        check(`examples: prompts/get ${name}`, texts.some((t) => t.includes(expected)), JSON.stringify(texts));
    }
} catch (e) {
    check('examples: ran without unexpected error', false, String(e?.stack ?? e));
} finally {
    await exampleClient.close();
}

// A client that calls only tools: --prompts-as-tools lists and renders every example through
// list_prompts and get_prompt.
const toolsClient = new Client({ name: 'tinymcp-interop-ts-tools', version: '1.0' });
try {
    await toolsClient.connect(new StdioClientTransport({
        command: 'python3', args: ['-m', 'tinymcp', '--prompts', examples, '--prompts-as-tools'],
        env: { ...getDefaultEnvironment(), PYTHONPATH: root }, cwd: root
    }));
    const tools = (await toolsClient.listTools()).tools.map((t) => t.name);
    check('tools: tools/list names list_prompts and get_prompt',
        JSON.stringify(tools) === '["list_prompts","get_prompt"]', JSON.stringify(tools));
    const listed = JSON.parse((await toolsClient.callTool({ name: 'list_prompts', arguments: {} })).content[0].text);
    check('tools: list_prompts names every example',
        JSON.stringify(listed.map((p) => p.name).sort()) === JSON.stringify(Object.keys(exampleGets).sort()));
    for (const [name, [args, expected]] of Object.entries(exampleGets)) {
        const got = await toolsClient.callTool({ name: 'get_prompt', arguments: { name, arguments: args } });
        const texts = JSON.parse(got.content[0].text).messages.map((m) => m.content);
        check(`tools: get_prompt ${name}`, !got.isError && texts.some((t) => typeof t === 'string' && t.includes(expected)),
            JSON.stringify(texts));
    }
    const refused = await toolsClient.callTool({ name: 'get_prompt', arguments: { name: 'nope' } });
    check('tools: an unknown prompt is an isError result', refused.isError === true, JSON.stringify(refused));
} catch (e) {
    check('tools: ran without unexpected error', false, String(e?.stack ?? e));
} finally {
    await toolsClient.close();
}
process.exit(failures ? 1 : 0);
