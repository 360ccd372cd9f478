// Fetch wrappers for the plugin's connect API: the dialog that connects an AI
// client, and the person's connected clients.
import {requestAt, sitePath} from './api';
import {API_BASE} from './manifest';

export interface Setup {
    claude_code: string;
    cursor: string;
    vscode: string;
    vscode_link: string;
    cursor_link?: string;
}

// A preset is what a client loads, chosen in its MCP URL's query, with its
// own setups and the size in bytes of the tools/list it loads.
export interface Preset {
    id: 'everything' | 'read_only' | 'light';
    name: string;
    text: string;
    url: string;
    bytes: number;
    setup: Setup;
}

// A chat app that adds this server as a connector: its steps, and what
// stops it on this server (for the admin).
export interface Host {
    id: string;
    name: string;
    steps: string[];
    blocked?: string[];
}

export interface ConnectedClient {
    id: string;
    name: string;
    version?: string;
    other_names?: string[];
    sessions: number;
    last_used: string;
    sign_in: 'oauth' | 'personal_access_token' | 'session_token' | 'unknown';
    sign_in_text: string;
    oauth_app_id?: string;
    token_made_here?: boolean;
}

export interface Overview {
    url: string;
    oauth: boolean;
    oauth_text: string;
    oauth_reason?: string;
    can_create_token: boolean;
    token_note?: string;
    setup: Setup;
    presets: Preset[];
    hosts: Host[];
    clients: ConnectedClient[];
    more_clients?: number;
}

export interface MadeToken {
    id: string;
    token: string;
    description: string;
    setup: Setup;
    presets: Preset[];
}

export interface Disconnected {
    client: ConnectedClient;
    ended: number;
    revoked: string;
    oauth_app_id?: string;
    note?: string;
}

const CONNECT = `${API_BASE}/connect`;

export async function getOverview(): Promise<Overview> {
    const o = await requestAt<Overview>('GET', sitePath(CONNECT));
    return {...o, presets: o.presets ?? [], hosts: o.hosts ?? [], clients: o.clients ?? []};
}

export function createToken(): Promise<MadeToken> {
    return requestAt<MadeToken>('POST', sitePath(`${CONNECT}/token`));
}

export function disconnectClient(id: string): Promise<Disconnected> {
    return requestAt<Disconnected>('POST', sitePath(`${CONNECT}/clients/${encodeURIComponent(id)}/disconnect`));
}

// Mattermost's own API, with the person's own session: deauthorizing the OAuth
// app drops its access and refresh tokens, so the client cannot sign in again
// without asking the person.
export function deauthorizeApp(appID: string): Promise<unknown> {
    return requestAt<unknown>('POST', sitePath(`/api/v4/oauth/apps/${encodeURIComponent(appID)}/deauthorize`));
}
