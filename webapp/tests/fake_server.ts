import {vi} from 'vitest';

import type {ConfirmationDetail} from '../src/api';

export const ID = '0123456789abcdef0123456789abcdef';

// A pending post as the server sends it; overrides make it another write.
export function detail(overrides: Partial<ConfirmationDetail> = {}): ConfirmationDetail {
    const id = overrides.id ?? ID;
    return {
        id,
        title: 'Post to ~town-square: "hi" with 1 file(s)',
        state: 'pending',
        created_at: '2025-01-02T10:00:00Z',
        expires_at: '2025-01-02T10:10:00Z',
        destination: '~town-square "Town Square" (public, team Acme (acme), id 7ge5chan)',
        heading: 'Post in Town Square, Acme',
        place: 'Town Square, Acme',
        where: 'Town Square (~town-square), a public channel of team Acme',
        attribution: 'Written by an AI assistant for @alice (MCP)',
        time_zone: 'Europe/Berlin',
        outcome_text: '',
        message: 'hi **all**',
        notes: ['@channel notifies every member of Town Square, Acme: 12 people.'],
        files: [],
        outcome: '',
        permalink: '',
        page_url: `/plugins/mcp-server/confirm/${id}`,

        // The words the server sends with a post.
        lede: 'It asks to post this as you. Nothing is sent until you accept.',
        modal_lede: 'An AI assistant asks to post this as you. Nothing is sent until you accept.',
        message_heading: 'Message',
        message_caption: 'Written by the AI: it is posted exactly as shown',
        notes_heading: 'Who is notified',
        accept_label: 'Accept and post',
        modal_accept_label: 'Accept',
        working_label: 'Posting…',
        after_expiry: 'nothing is sent',
        ...overrides,
    };
}

// The words the server sends with every change but a post, where the change
// does not word them otherwise: no message box, Accept, Working… while it
// works, and nothing changed if it is left unanswered.
export const changeWords: Partial<ConfirmationDetail> = {
    message_heading: undefined,
    message_caption: undefined,
    accept_label: 'Accept',
    modal_accept_label: 'Accept',
    working_label: 'Working…',
    after_expiry: 'nothing is changed',
};

export interface Reply {
    status?: number;
    body: unknown;
}

type Route = Reply | Error | (() => Reply | Error | Promise<Reply | Error>);

// Replaces the global fetch with one that answers "METHOD path" from routes and
// records every call; an unknown route gets the server's 404. An Error reply
// rejects, as fetch does when the network fails.
export function fakeServer(routes: Record<string, Route>) {
    const fetchMock = vi.fn(async (url: string, init: RequestInit = {}) => {
        const route = routes[`${init.method ?? 'GET'} ${url}`];
        const reply = typeof route === 'function' ? await route() : route ?? {status: 404, body: {error: 'not found'}};
        if (reply instanceof Error) {
            throw reply;
        }
        return new Response(JSON.stringify(reply.body), {
            status: reply.status ?? 200,
            headers: {'Content-Type': 'application/json'},
        });
    });
    vi.stubGlobal('fetch', fetchMock);
    const calls = () => fetchMock.mock.calls.map(([url, init]) => `${init?.method ?? 'GET'} ${url}`);
    return {fetchMock, calls};
}

// A reply the test releases when it wants, to look at the in-flight state.
export function deferred() {
    let release!: (reply: Reply) => void;
    const promise = new Promise<Reply>((resolve) => {
        release = resolve;
    });
    return {route: () => promise, release};
}

export const BASE = '/plugins/mcp-server/api/v1/confirmations';
