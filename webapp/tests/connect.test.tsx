import {act, cleanup, fireEvent, render, screen, waitFor, within} from '@testing-library/react';
import React from 'react';
import {afterEach, describe, expect, it, vi} from 'vitest';

import {fakeRegistry, fakeStore} from './fake_registry';
import {fakeServer} from './fake_server';

import type {ConnectedClient, Host, Overview, Preset, Setup} from '../src/connect_api';
import {opensDialog, Plugin} from '../src/plugin';

const CONNECT = '/plugins/mcp-server/api/v1/connect';
const URL = 'https://chat.example.com/plugins/mcp-server/mcp';

afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    document.cookie = 'MMCSRF=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

function client(overrides: Partial<ConnectedClient> = {}): ConnectedClient {
    return {id: 'c1',
        name: 'claude-code',
        version: '2.0.1',
        sessions: 1,
        last_used: '2026-12-01T12:00:00Z',
        sign_in: 'oauth',
        sign_in_text: 'OAuth, as the app "Claude Code"',
        oauth_app_id: 'app1',
        ...overrides};
}

// setupOf is every client's setup and link for the MCP URL url, as the
// server writes them (carrying the URL), with token when one is made.
function setupOf(url: string, token = ''): Setup {
    const header = token ? ` --header 'Authorization: Bearer ${token}'` : '';
    return {
        claude_code: `claude mcp add --transport http mattermost ${url}${header}`,
        cursor: `{"mcpServers":{"mattermost":{"url":"${url}"}}}`,
        vscode: `{"servers":{"mattermost":{"type":"http","url":"${url}"}}}`,
        vscode_link: `vscode:mcp/install?${encodeURIComponent(JSON.stringify({name: 'mattermost', url}))}`,
        cursor_link: `cursor://anysphere.cursor-deeplink/mcp/install?name=mattermost&config=${encodeURIComponent(btoa(JSON.stringify({url})))}`,
    };
}

// presetsOf are the three presets, sizes no two share, as the server sends them.
function presetsOf(token = ''): Preset[] {
    return [
        {id: 'everything', name: 'Everything', text: 'Every tool the admin allows.', url: URL, bytes: 52944, setup: setupOf(URL, token)},
        {id: 'read_only', name: 'Reading only', text: 'Every tool that only reads.', url: `${URL}?read_only=true`, bytes: 31340, setup: setupOf(`${URL}?read_only=true`, token)},
        {id: 'light', name: 'Light start', text: 'The everyday reading core.', url: `${URL}?toolsets=light`, bytes: 10270, setup: setupOf(`${URL}?toolsets=light`, token)},
    ];
}

// hostsOf is the chat apps as the server says them, blocked for the reasons given.
function hostsOf(blocked: string[] = []): Host[] {
    return [
        {id: 'chatgpt', name: 'ChatGPT', steps: ['Turn on Developer mode.', 'Create a connector with the MCP URL above and OAuth.', 'Pick Mattermost in Deep research.'], blocked},
        {id: 'claude', name: 'Claude (claude.ai and Claude Desktop)', steps: ['Add custom connector.', 'Paste the MCP URL above.', 'Click Connect.'], blocked},
    ];
}

function overview(overrides: Partial<Overview> = {}): Overview {
    return {
        url: URL,
        oauth: true,
        oauth_text: 'This server signs AI clients in with your Mattermost account (OAuth).',
        can_create_token: true,
        setup: {
            claude_code: `claude mcp add --transport http mattermost ${URL}`,
            cursor: `{"mcpServers":{"mattermost":{"url":"${URL}"}}}`,
            vscode: `{"servers":{"mattermost":{"type":"http","url":"${URL}"}}}`,
            vscode_link: 'vscode:mcp/install?%7B%7D',
            cursor_link: 'cursor://anysphere.cursor-deeplink/mcp/install?name=mattermost&config=e30%3D',
        },
        presets: [],
        hosts: hostsOf(),
        clients: [client()],
        ...overrides,
    };
}

// shownSetup is what the dialog shows of every client's setup and links.
function shownSetup(dialog: HTMLElement) {
    return {
        claude: within(dialog).getByLabelText('Claude Code command').textContent,
        cursor: within(dialog).getByLabelText('Cursor mcp.json').textContent,
        vscode: within(dialog).getByLabelText('VS Code mcp.json').textContent,
        cursorLink: within(dialog).getByRole('link', {name: 'Install in Cursor'}).getAttribute('href'),
        vscodeLink: within(dialog).getByRole('link', {name: 'Install in VS Code'}).getAttribute('href'),
    };
}

// The plugin initialized with its Connect dialog rendered, as Mattermost would.
function start() {
    const fake = fakeRegistry();
    const plugin = new Plugin();
    plugin.initialize(fake.registry, fakeStore());
    const Dialog = fake.roots[1];
    render(<Dialog/>);
    return {...fake, plugin};
}

function openFromHeader(headerButtons: ReturnType<typeof fakeRegistry>['headerButtons']) {
    const button = headerButtons.find((b) => b.dropdownText === 'Connect an AI client');
    expect(button).toBeTruthy();
    act(() => button!.action());
}

describe('the Connect dialog', () => {
    it('opens from the channel header button with the URL, the setups and their install links', async () => {
        const {calls} = fakeServer({[`GET ${CONNECT}`]: {body: overview()}});
        const {headerButtons} = start();
        expect(screen.queryByRole('dialog')).toBeNull();

        openFromHeader(headerButtons);

        const dialog = await screen.findByRole('dialog', {name: 'Connect an AI client'});
        await within(dialog).findByLabelText('MCP URL');
        expect(within(dialog).getByLabelText('MCP URL').textContent).toBe(URL);
        expect(within(dialog).getByLabelText('Claude Code command').textContent).toContain('claude mcp add');
        expect(within(dialog).getByLabelText('VS Code mcp.json').textContent).toContain('"servers"');
        expect(within(dialog).getByRole('link', {name: 'Install in VS Code'}).getAttribute('href')).toBe('vscode:mcp/install?%7B%7D');
        expect(within(dialog).getByRole('link', {name: 'Install in Cursor'}).getAttribute('href')).toContain('cursor://anysphere.cursor-deeplink/mcp/install?');
        expect(within(dialog).queryByRole('button', {name: 'Create a token for MCP'})).toBeNull();
        expect(calls()).toEqual([`GET ${CONNECT}`]);
    });

    it('shows each chat app\'s steps, and what stops it on this server only when something does', async () => {
        fakeServer({[`GET ${CONNECT}`]: {body: overview()}});
        const {headerButtons} = start();
        openFromHeader(headerButtons);
        const dialog = await screen.findByRole('dialog', {name: 'Connect an AI client'});
        const apps = await within(dialog).findByRole('region', {name: 'Chat apps'});
        expect(within(apps).getByRole('heading', {name: 'ChatGPT'})).toBeTruthy();
        expect(within(apps).getByRole('heading', {name: 'Claude (claude.ai and Claude Desktop)'})).toBeTruthy();
        expect(within(apps).getByText('Create a connector with the MCP URL above and OAuth.')).toBeTruthy();
        expect(within(apps).queryByRole('note')).toBeNull();
    });

    it('says for the admin why a chat app cannot connect yet', async () => {
        const why = 'This server does not sign AI clients in with OAuth: chat apps sign in only with OAuth. The admin turns on Dynamic Client Registration.';
        fakeServer({[`GET ${CONNECT}`]: {body: overview({oauth: false, hosts: hostsOf([why])})}});
        const {headerButtons} = start();
        openFromHeader(headerButtons);
        const dialog = await screen.findByRole('dialog', {name: 'Connect an AI client'});
        const apps = await within(dialog).findByRole('region', {name: 'Chat apps'});

        // Said once for both, each reason once.
        const note = within(apps).getByRole('note');
        expect(note.textContent).toContain('ChatGPT and Claude (claude.ai and Claude Desktop) cannot connect to this server yet.');
        expect(within(note).getAllByRole('listitem').map((li) => li.textContent)).toEqual([`For your system admin: ${why}`]);
    });

    it('offers three presets, each with its size, and every client\'s setup and install link follow the one chosen', async () => {
        fakeServer({[`GET ${CONNECT}`]: {body: overview({setup: setupOf(URL), presets: presetsOf()})}});
        const {headerButtons} = start();
        openFromHeader(headerButtons);
        const dialog = await screen.findByRole('dialog', {name: 'Connect an AI client'});
        const group = await within(dialog).findByRole('group', {name: 'What the client loads'});
        const radios = within(group).getAllByRole('radio');
        expect(radios).toHaveLength(3);
        expect(within(group).getByRole('radio', {name: /^Everything · 52,944 bytes of tools/}).getAttribute('checked')).toBe('');
        for (const p of presetsOf()) {
            const radio = within(group).getByRole('radio', {name: new RegExp(`^${p.name} · ${p.bytes.toLocaleString('en-US')} bytes of tools`)});
            fireEvent.click(radio);
            expect((radio as HTMLInputElement).checked).toBe(true);
            const shown = shownSetup(dialog);
            expect(shown).toEqual({claude: p.setup.claude_code, cursor: p.setup.cursor, vscode: p.setup.vscode, cursorLink: p.setup.cursor_link, vscodeLink: p.setup.vscode_link});
            expect(shown.claude).toContain(p.url);
            expect(shown.cursor).toContain(`"${p.url}"`);
            expect(shown.vscode).toContain(`"${p.url}"`);
            expect(decodeURIComponent(shown.vscodeLink!)).toContain(`"url":"${p.url}"`);
            expect(atob(new globalThis.URL(shown.cursorLink!).searchParams.get('config')!)).toContain(`"url":"${p.url}"`);
        }
        expect(within(group).getByText('Light start').closest('label')?.textContent).toContain('The everyday reading core.');
    });

    it('fills a token made into the setups of the preset chosen', async () => {
        document.cookie = 'MMCSRF=csrf-1';
        fakeServer({
            [`GET ${CONNECT}`]: {body: overview({oauth: false, setup: setupOf(URL), presets: presetsOf()})},
            [`POST ${CONNECT}/token`]: {status: 201, body: {id: 't1', token: 'secret-token', description: 'MCP: AI client', setup: setupOf(URL, 'secret-token'), presets: presetsOf('secret-token')}},
        });
        const {headerButtons} = start();
        openFromHeader(headerButtons);
        fireEvent.click(await screen.findByRole('radio', {name: /^Light start/}));
        fireEvent.click(screen.getByRole('button', {name: 'Create a token for MCP'}));
        await screen.findByLabelText('personal access token');
        const claude = screen.getByLabelText('Claude Code command').textContent;
        expect(claude).toContain(`${URL}?toolsets=light`);
        expect(claude).toContain('Bearer secret-token');
    });

    it('opens from the app bar too', async () => {
        fakeServer({[`GET ${CONNECT}`]: {body: overview()}});
        const {appBar} = start();
        expect(appBar).toHaveLength(1);
        expect(appBar[0].iconUrl).toMatch(/^data:image\/svg\+xml,/);
        act(() => appBar[0].action());
        expect(await screen.findByRole('dialog', {name: 'Connect an AI client'})).toBeTruthy();
    });

    it('copies the URL to the clipboard', async () => {
        fakeServer({[`GET ${CONNECT}`]: {body: overview()}});
        const writeText = vi.fn(async () => undefined);
        vi.stubGlobal('navigator', {...navigator, clipboard: {writeText}});
        const {headerButtons} = start();
        openFromHeader(headerButtons);
        fireEvent.click(await screen.findByRole('button', {name: 'Copy MCP URL'}));
        await screen.findByText('Copied');
        expect(writeText).toHaveBeenCalledWith(URL);
    });

    it('without OAuth makes a token with the CSRF token, shows it once and fills it into the setup', async () => {
        document.cookie = 'MMCSRF=csrf-1';
        const made = {id: 't1',
            token: 'secret-token',
            description: 'MCP: AI client',
            setup: {...overview().setup, claude_code: `claude mcp add --transport http mattermost ${URL} --header 'Authorization: Bearer secret-token'`}};
        const {fetchMock} = fakeServer({
            [`GET ${CONNECT}`]: {body: overview({oauth: false, oauth_text: 'This server does not sign AI clients in with OAuth.', oauth_reason: 'Dynamic Client Registration is off'})},
            [`POST ${CONNECT}/token`]: {status: 201, body: made},
        });
        const {headerButtons} = start();
        openFromHeader(headerButtons);
        expect(await screen.findByText(/For your system admin: Dynamic Client Registration is off/)).toBeTruthy();

        fireEvent.click(screen.getByRole('button', {name: 'Create a token for MCP'}));

        expect((await screen.findByLabelText('personal access token')).textContent).toBe('secret-token');
        expect(screen.getByText(/shown only now/)).toBeTruthy();
        expect(screen.getByLabelText('Claude Code command').textContent).toContain('Bearer secret-token');
        expect(screen.queryByRole('button', {name: 'Create a token for MCP'})).toBeNull();
        const [, init] = fetchMock.mock.calls.find(([url]) => url === `${CONNECT}/token`)!;
        expect((init?.headers as Record<string, string>)['X-CSRF-Token']).toBe('csrf-1');

        // Closed and opened again, the token is gone.
        fireEvent.click(screen.getByRole('button', {name: 'Close'}));
        openFromHeader(headerButtons);
        await screen.findByLabelText('MCP URL');
        expect(screen.queryByLabelText('personal access token')).toBeNull();
    });

    it('says why when the person may not make a token', async () => {
        fakeServer({[`GET ${CONNECT}`]: {body: overview({oauth: false, can_create_token: false, token_note: 'Your account may not create personal access tokens.'})}});
        const {headerButtons} = start();
        openFromHeader(headerButtons);
        expect(await screen.findByText('Your account may not create personal access tokens.')).toBeTruthy();
        expect(screen.queryByRole('button', {name: 'Create a token for MCP'})).toBeNull();
    });

    it('lists the connected clients and disconnects one only after the person confirms, deauthorizing its OAuth app', async () => {
        let disconnected = false;
        const other = client({id: 'c2', name: 'cursor', sign_in: 'personal_access_token', sign_in_text: 'Personal access token', oauth_app_id: undefined});
        const {calls} = fakeServer({
            [`GET ${CONNECT}`]: () => ({body: overview({clients: disconnected ? [other] : [client(), other]})}),
            [`POST ${CONNECT}/clients/c1/disconnect`]: () => {
                disconnected = true;
                return {body: {client: client(), ended: 1, revoked: 'session', oauth_app_id: 'app1'}};
            },
            'POST /api/v4/oauth/apps/app1/deauthorize': {body: {status: 'OK'}},
        });
        const {headerButtons} = start();
        openFromHeader(headerButtons);
        const list = await screen.findByRole('list', {name: 'Connected clients'});
        const first = within(list).getAllByRole('listitem')[0];
        expect(first.textContent).toContain('claude-code');
        expect(first.textContent).toContain('2.0.1');
        expect(first.textContent).toContain('OAuth, as the app "Claude Code"');

        fireEvent.click(within(first).getByRole('button', {name: 'Disconnect'}));
        expect(calls()).toEqual([`GET ${CONNECT}`]);
        expect(within(first).getByRole('group', {name: 'Disconnect claude-code?'}).textContent).toContain('OAuth access is withdrawn');
        fireEvent.click(within(first).getByRole('button', {name: 'Yes, disconnect'}));

        expect((await screen.findByRole('status')).textContent).toContain('claude-code is disconnected. Its OAuth access is withdrawn');
        await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(1));
        expect(list.textContent).toContain('cursor');
        expect(calls()).toEqual([`GET ${CONNECT}`, `POST ${CONNECT}/clients/c1/disconnect`, 'POST /api/v4/oauth/apps/app1/deauthorize', `GET ${CONNECT}`]);
    });

    it('cancelling a disconnect changes nothing', async () => {
        const {calls} = fakeServer({[`GET ${CONNECT}`]: {body: overview()}});
        const {headerButtons} = start();
        openFromHeader(headerButtons);
        fireEvent.click(await screen.findByRole('button', {name: 'Disconnect'}));
        fireEvent.click(screen.getByRole('button', {name: 'Cancel'}));
        expect(screen.getByRole('button', {name: 'Disconnect'})).toBeTruthy();
        expect(calls()).toEqual([`GET ${CONNECT}`]);
    });

    it('shows the server\'s refusal of a disconnect', async () => {
        fakeServer({
            [`GET ${CONNECT}`]: {body: overview()},
            [`POST ${CONNECT}/clients/c1/disconnect`]: {status: 403, body: {error: 'Only you, signed in to Mattermost in the web or desktop app, can disconnect a client.'}},
        });
        const {headerButtons} = start();
        openFromHeader(headerButtons);
        fireEvent.click(await screen.findByRole('button', {name: 'Disconnect'}));
        fireEvent.click(screen.getByRole('button', {name: 'Yes, disconnect'}));
        expect((await screen.findByRole('alert')).textContent).toContain('The client was not disconnected: Only you, signed in');
    });
});

describe('/mcp', () => {
    it('opens the dialog for /mcp and /mcp connect and lets the other subcommands through to the server', async () => {
        fakeServer({[`GET ${CONNECT}`]: {body: overview()}});
        const {slashHooks} = start();
        expect(slashHooks).toHaveLength(1);

        expect(await slashHooks[0]('/mcp help', {channel_id: 'x'})).toEqual({message: '/mcp help', args: {channel_id: 'x'}});
        expect(await slashHooks[0]('/mcpx', {})).toEqual({message: '/mcpx', args: {}});
        expect(screen.queryByRole('dialog')).toBeNull();

        let answer: unknown;
        act(() => {
            answer = slashHooks[0](' /mcp ', {});
        });
        expect(answer).toEqual({});
        expect(await screen.findByRole('dialog', {name: 'Connect an AI client'})).toBeTruthy();
        expect(opensDialog('/mcp Connect')).toBe(true);
        expect(opensDialog('/mcp clients')).toBe(false);
    });
});
