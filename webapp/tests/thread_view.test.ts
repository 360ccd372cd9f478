// The thread view's script as a host runs it: it reads thumbnails with
// resources/read through the host (never a tool call), and only when the
// host says it can.
import {beforeEach, describe, expect, it, vi} from 'vitest';

type Read = {uri: string};
const host = vi.hoisted(() => ({
    capabilities: {} as Record<string, unknown>,
    reads: [] as Read[],
    calls: [] as unknown[],
    app: null as null | {ontoolresult?: (p: unknown) => void},
}));

vi.mock('@modelcontextprotocol/ext-apps/app-with-deps', () => ({
    App: class {
        ontoolresult?: (p: unknown) => void;
        onhostcontextchanged?: (c: unknown) => void;
        constructor() {
            host.app = this;
        }
        connect() {
            return Promise.resolve();
        }
        getHostContext() {
            return {theme: 'dark'};
        }
        getHostCapabilities() {
            return host.capabilities;
        }
        readServerResource(params: Read) {
            host.reads.push(params);
            return Promise.resolve({contents: [{uri: params.uri, mimeType: 'image/jpeg', blob: '/9j/4AAQ'}]});
        }
        callServerTool(params: unknown) {
            host.calls.push(params);
            return Promise.resolve({content: []});
        }
    },
}));

const result = {structuredContent: {posts: [{id: 'p',
    author: '@a',
    time: '2026-01-01T00:00:00Z',
    message: 'm',
    permalink: 'https://mm.example/t/pl/p',
    attachments: [{file_id: 'f1', name: 'a.png', type: 'image/png', size: 10}, {file_id: 'f2', name: 'b.txt', type: 'text/plain', size: 10}]}]}};

async function start(capabilities: Record<string, unknown>) {
    vi.resetModules();
    host.capabilities = capabilities;
    host.reads = [];
    host.calls = [];
    document.head.innerHTML = '';
    document.body.innerHTML = '<main id="root"></main>';
    await import('../src/views/thread');
    await vi.waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'));
    host.app?.ontoolresult?.(result);
    return document.getElementById('root') as HTMLElement;
}

describe('the thread view as a host runs it', () => {
    beforeEach(() => {
        delete document.documentElement.dataset.theme;
    });

    it('reads each image attachment\'s thumbnail resource through the host and draws its blob', async () => {
        const root = await start({serverResources: {}, serverTools: {}});
        await vi.waitFor(() => expect(root.querySelector('img.thumb')).not.toBeNull());
        expect(root.querySelector('img.thumb')?.getAttribute('src')).toBe('data:image/jpeg;base64,/9j/4AAQ');
        expect(host.reads).toEqual([{uri: 'mattermost://file/f1/thumbnail'}]);
        expect(host.calls).toEqual([]);
    });

    it('reads nothing from a host that cannot read the server\'s resources', async () => {
        const root = await start({serverTools: {}});
        expect(root.querySelector('.post')).not.toBeNull();
        await Promise.resolve();
        expect(host.reads).toEqual([]);
        expect(host.calls).toEqual([]);
        expect(root.querySelector('img')).toBeNull();
    });
});
