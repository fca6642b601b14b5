// Interop check: drive tinymcp with the MCP TypeScript SDK v2 client (@modelcontextprotocol/client 2.x).
// Usage: node interop_ts2.mjs CONFIG SERVER_ROOT
// Must sit next to a node_modules holding the package (scripts/interop copies it there): ESM bare
// imports resolve from the file's own location and ignore NODE_PATH.
// Runs the same checks in each of the client's version-negotiation modes (ClientOptions
// .versionNegotiation.mode): 'legacy' (the default: the 2025 initialize handshake), 'auto'
// (server/discover first, falling back to initialize) and { pin: '2026-07-28' }.
// Then, in the 'legacy' and 'auto' modes, ClientOptions.listChanged against a `--watch` server
// serving a temporary copy of CONFIG: a legacy connection hears notifications/prompts/list_changed
// unsolicited, a modern one through the subscriptions/listen stream the client opens by itself.
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';

const [config, root] = process.argv.slice(2);
// (the package's exports do not include package.json: read it next to this file)
const { version } = JSON.parse(readFileSync(
    new URL('./node_modules/@modelcontextprotocol/client/package.json', import.meta.url), 'utf8'));
console.log(`@modelcontextprotocol/client ${version}`);
let failures = 0;
const check = (name, ok, detail = '') => {
    if (!ok) failures++;
    console.log(`${ok ? 'PASS' : 'FAIL'}: ts2: ${name}${detail ? ` (${detail})` : ''}`);
};
const expectError = async (name, promise, code) => {
    try {
        await promise;
        check(name, false, 'no error raised');
    } catch (e) {
        check(name, e instanceof ProtocolError && e.code === code, `got ${e?.name} code=${e?.code}: ${e?.message}`);
    }
};

setTimeout(() => {
    console.log('FAIL: ts2: timed out after 90s');
    process.exit(1);
}, 90_000).unref();

const MODES = [
    // [label, versionNegotiation, expected era, expected protocol version (undefined: any handshake one)]
    ['legacy', undefined, 'legacy', undefined],
    ['auto', { mode: 'auto' }, 'modern', '2026-07-28'],
    ['pin 2026-07-28', { mode: { pin: '2026-07-28' } }, 'modern', '2026-07-28'],
];
const HANDSHAKE = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';

for (const [label, versionNegotiation, wantEra, wantVersion] of MODES) {
    const transport = new StdioClientTransport({
        command: 'python3',
        args: ['-m', 'tinymcp', '--config', config, '--page-size', '20'],
        // The SDK only inherits HOME/LOGNAME/PATH/SHELL/TERM/USER unless env is given.
        env: { ...getDefaultEnvironment(), PYTHONPATH: root },
        cwd: root
    });
    // Watch what the client sends on this connection: the methods, and the protocol versions it names
    // (in initialize's params, or in each stateless request's _meta).
    const sent = [];
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
        sent.push(message);
        return send(message, options);
    };
    const countSent = (method) => sent.filter((m) => m.method === method).length;
    const versionsSent = () => [...new Set(sent.flatMap((m) => [m.params?.protocolVersion, m.params?._meta?.[META_VERSION]])
        .filter((v) => v !== undefined))];

    const client = new Client({ name: 'tinymcp-interop-ts2', version: '1.0' },
        versionNegotiation ? { versionNegotiation } : {});
    try {
        await client.connect(transport);
        const era = client.getProtocolEra(), negotiated = client.getNegotiatedProtocolVersion();
        check(`${label}: connect`,
            era === wantEra && (wantVersion ? negotiated === wantVersion : HANDSHAKE.includes(negotiated))
                && client.getServerCapabilities()?.prompts !== undefined,
            `era=${era}, protocolVersion=${negotiated}, server=${JSON.stringify(client.getServerVersion())}`);

        // listPrompts() with no cursor walks every page itself and returns the aggregate
        let before = countSent('prompts/list');
        const all = (await client.listPrompts(undefined, { cacheMode: 'bypass' })).prompts.map((p) => p.name);
        const pagesAsked = countSent('prompts/list') - before;
        check(`${label}: listPrompts() follows 13 pages to 250 unique names`,
            pagesAsked === 13 && all.length === 250 && new Set(all).size === 250,
            `${pagesAsked} prompts/list requests, ${all.length} names, ${new Set(all).size} unique`);

        // by hand: the first page through request(), then listPrompts({ cursor }) returns one raw page
        let pages = 0, cursor;
        const names = [];
        do {
            const result = cursor === undefined
                ? await client.request({ method: 'prompts/list', params: {} })
                : await client.listPrompts({ cursor });
            pages++;
            names.push(...result.prompts.map((p) => p.name));
            cursor = result.nextCursor;
        } while (cursor !== undefined && pages <= 100);
        check(`${label}: page by page with nextCursor: 13 pages, 250 unique names`,
            pages === 13 && names.length === 250 && new Set(names).size === 250, `${pages} pages, ${names.length} names`);

        const got = await client.getPrompt({ name: 'p007', arguments: { topic: 'x' } });
        const texts = got.messages.filter((m) => m.content.type === 'text').map((m) => m.content.text);
        check(`${label}: getPrompt p007 renders topic=x`, JSON.stringify(texts) === '["Tell me about x"]', JSON.stringify(texts));

        await expectError(`${label}: getPrompt unknown -> -32602`, client.getPrompt({ name: 'nope' }), -32602);
        await expectError(`${label}: getPrompt missing required arg -> -32602`,
            client.getPrompt({ name: 'p007', arguments: {} }), -32602);

        const ref = { type: 'ref/prompt', name: 'p007' };
        let c = (await client.complete({ ref, argument: { name: 'topic', value: '' } })).completion;
        check(`${label}: complete() empty value -> 100 of 250, hasMore`,
            c.values.length === 100 && c.total === 250 && c.hasMore === true,
            `${c.values.length} values, total=${c.total}, hasMore=${c.hasMore}`);
        c = (await client.complete({ ref, argument: { name: 'topic', value: 'c' } })).completion;
        const exactFirst = c.values.slice(0, 50).every((v) => v.startsWith('c'))
            && !c.values.slice(50).some((v) => v.startsWith('c'));
        check(`${label}: complete() 'c' -> c/C only, exact case first`,
            c.values.every((v) => 'cC'.includes(v[0])) && exactFirst && c.total === 150 && c.hasMore === true,
            `${c.values.slice(0, 2)}...${c.values.slice(-2)}, total=${c.total}`);

        const versions = versionsSent();
        check(`${label}: every version sent names the negotiated one`,
            versions.length === 1 && versions[0] === negotiated,
            `sent ${JSON.stringify(versions)}; methods ${JSON.stringify([...new Set(sent.map((m) => m.method))])}`);
    } catch (e) {
        check(`${label}: ran without unexpected error`, false, String(e?.stack ?? e));
    } finally {
        await client.close();
    }
}

// --- listChanged under --watch: rewrite the watched copy, wait (bounded) for onChanged ---
const WAIT_MS = 10_000;
const folder = mkdtempSync(join(tmpdir(), 'tinymcp-interop-ts2-watch-'));
try {
    for (const [label, versionNegotiation] of MODES.slice(0, 2)) {
        const path = join(folder, 'prompts.json');
        writeFileSync(path, readFileSync(config));
        let changed;
        const heard = new Promise((resolve) => { changed = resolve; });
        const client = new Client({ name: 'tinymcp-interop-ts2-watch', version: '1.0' }, {
            ...(versionNegotiation ? { versionNegotiation } : {}),
            // autoRefresh (the default): onChanged gets the list as re-fetched after the change
            listChanged: { prompts: { debounceMs: 0, onChanged: (error, prompts) => changed({ error, prompts }) } },
        });
        try {
            await client.connect(new StdioClientTransport({
                command: 'python3', args: ['-m', 'tinymcp', '--config', path, '--watch', '--page-size', '20'],
                env: { ...getDefaultEnvironment(), PYTHONPATH: root }, cwd: root
            }));
            const era = client.getProtocolEra();
            if (era === 'modern') {
                const sub = client.autoOpenedSubscription;
                check(`${label}: watch: listChanged opened a subscriptions/listen stream for prompts`,
                    sub?.honoredFilter?.promptsListChanged === true, JSON.stringify(sub?.honoredFilter));
            }
            const before = (await client.listPrompts()).prompts.length;
            const edited = JSON.parse(readFileSync(path, 'utf8'));
            edited.prompts.push({ name: 'p250', description: 'Added while watched',
                messages: [{ role: 'user', text: 'I was added while you watched' }] });
            writeFileSync(`${path}.tmp`, JSON.stringify(edited));
            renameSync(`${path}.tmp`, path);
            let timer;
            const outcome = await Promise.race([heard,
                new Promise((resolve) => { timer = setTimeout(() => resolve(undefined), WAIT_MS); })]);
            clearTimeout(timer);
            const names = outcome?.prompts?.map((p) => p.name) ?? [];
            check(`${label}: watch: onChanged after adding p250 gets the new list (era=${era})`,
                before === 250 && outcome !== undefined && outcome.error === null
                    && names.length === 251 && names.includes('p250'),
                outcome === undefined ? `nothing within ${WAIT_MS / 1000}s`
                    : `${before} before, ${names.length} after, error=${outcome.error}`);
            const again = (await client.listPrompts()).prompts.map((p) => p.name);
            check(`${label}: watch: listPrompts() after the change shows p250`,
                again.length === 251 && again.includes('p250'), `${again.length} names`);
        } catch (e) {
            check(`${label}: watch: ran without unexpected error`, false, String(e?.stack ?? e));
        } finally {
            await client.close();
        }
    }
} finally {
    rmSync(folder, { recursive: true, force: true });
}

// An ask_for_missing prompt (2026-07-28 input_required): the client fills the elicitation form
// with its own handler and retries by itself.
{
    const askFolder = mkdtempSync(join(tmpdir(), 'tinymcp-ask-'));
    const askConfig = join(askFolder, 'ask.json');
    writeFileSync(askConfig, JSON.stringify({ ask_for_missing: true, prompts: [{ name: 'review', arguments: [
        { name: 'code', required: true }, { name: 'lang', required: true, choices: ['py', 'js'] }],
        messages: [{ role: 'user', text: 'Review {lang}: {code}' }] }] }));
    const client = new Client({ name: 'tinymcp-interop-ask', version: '1' }, {
        capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const asked = [];
    client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params.requestedSchema);
        return { action: 'accept', content: { code: 'x = 1', lang: 'py' } };
    });
    try {
        await client.connect(new StdioClientTransport({ command: 'python3', args: ['-m', 'tinymcp', '--config', askConfig],
            env: { ...getDefaultEnvironment(), PYTHONPATH: root }, cwd: root }));
        const got = await client.getPrompt({ name: 'review', arguments: {} });
        const texts = got.messages.map((m) => m.content.text);
        check('ask: the client fills the form for missing arguments and gets the prompt',
            texts.length === 1 && texts[0] === 'Review py: x = 1' && asked.length === 1
                && JSON.stringify(asked[0].required) === '["code","lang"]', JSON.stringify([texts, asked]));
    } catch (e) {
        check('ask: ran without unexpected error', false, String(e?.stack ?? e));
    } finally {
        await client.close();
        rmSync(askFolder, { recursive: true, force: true });
    }
}
process.exit(failures ? 1 : 0);
