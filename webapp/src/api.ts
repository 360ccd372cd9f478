// Fetch wrappers for the plugin's confirmation API.
import {API_BASE} from './manifest';

// withdrawn: the AI assistant's client cancelled the call that asked.
export type ConfirmationState = 'pending' | 'executing' | 'posted' | 'declined' | 'failed' | 'withdrawn';

// Each state in a word, for the sidebar's list and for an outcome the server
// did not word.
export const STATE_WORDS: Record<ConfirmationState, string> = {
    pending: 'Waiting for you',
    executing: 'Being posted',
    posted: 'Posted',
    declined: 'Declined',
    failed: 'Failed',
    withdrawn: 'Withdrawn',
};

export interface ConfirmationFile {
    index: number;
    name: string;
    size: number;
    size_text: string;
    type: string;
    mismatch: string;
    origin: string;

    // The origin as a sentence ("Written by the AI"); origin_url is the post an
    // attachment was copied from.
    origin_text?: string;
    origin_url?: string;
    sha256: string;
    preview: string;
    thumbnail_url: string;
}

export interface ConfirmationDetail {
    id: string;
    title: string;
    state: ConfirmationState;
    created_at: string;
    expires_at: string;
    destination: string;

    // The write in the person's words ("Post in Harbour ops, CEO Team"), where it
    // goes in their words, and in full without ids. An answered record has none.
    heading?: string;

    // The heading in spans: ai marks a value the model chose (an emoji, a new
    // channel's name), which the modal shows apart, as the model's.
    heading_line?: HeadingSpan[];
    place?: string;
    where?: string;

    // The note the post carries under it.
    attribution?: string;

    // The person's time zone from their Mattermost profile (IANA name).
    time_zone?: string;

    // What happened, in a sentence, and why a write failed.
    outcome_text?: string;
    outcome_reason?: string;

    // '' for a post; 'edit', 'react' or 'unreact' for the other writes.
    action?: string;
    emoji?: string;
    message: string;

    // The message an edit replaces, or the post a reaction is on.
    previous?: string;
    notes: string[];
    files: ConfirmationFile[];
    outcome: string;
    permalink: string;
    page_url: string;

    // Worded by the server for every pending write, so the modal keeps no
    // copies: the sentence under the heading (modal_lede as the modal says it),
    // what changes line by line (ai: written by the model; none for a post, an
    // edit or a reaction), the heading and caption of the model's message (none
    // when the write shows no message), the caption of the post it is about on
    // the page and its heading in the modal, the heading of the notes, the
    // accept button's label (on the page, in the modal, and while the answer is
    // under way), and what becomes of the write unanswered.
    lede?: string;
    modal_lede?: string;
    facts?: ConfirmationFact[];
    message_heading?: string;
    message_caption?: string;
    previous_caption?: string;
    previous_title?: string;
    notes_heading?: string;
    accept_label?: string;
    modal_accept_label?: string;
    working_label?: string;
    after_expiry?: string;
}

export interface HeadingSpan {
    text: string;
    ai?: boolean;
}

export interface ConfirmationFact {
    label: string;
    value: string;
    ai?: boolean;
}

export type Answer = 'accept' | 'decline';

// status 0 means the request never got an HTTP answer (network down, CORS, aborted).
export class ApiError extends Error {
    constructor(readonly status: number, message: string) {
        super(message);
        this.name = 'ApiError';
    }
}

// The server's paths are relative to the site; Mattermost served under a subpath
// sets window.basename, which they then need in front.
export function sitePath(path: string): string {
    if (!path.startsWith('/') || path.startsWith('//')) {
        return path;
    }
    return (window.basename ?? '').replace(/\/$/, '') + path;
}

// Mattermost keeps its CSRF token in the MMCSRF cookie. The host's Client4 is not
// exposed to plugins, so read the cookie the same way it does.
export function csrfToken(): string {
    for (const part of document.cookie.split(';')) {
        const [name, ...value] = part.trim().split('=');
        if (name === 'MMCSRF') {
            return decodeURIComponent(value.join('='));
        }
    }
    return '';
}

function request<T>(method: 'GET' | 'POST', path: string): Promise<T> {
    return requestAt<T>(method, sitePath(API_BASE + path));
}

// A JSON request with the person's own session: the cookie, and on a POST the
// CSRF token only their Mattermost app holds. url is already site-relative.
export async function requestAt<T>(method: 'GET' | 'POST', url: string): Promise<T> {
    // Without both headers Mattermost ignores the session cookie on a POST and the
    // plugin sees an anonymous request.
    const headers: Record<string, string> = {'X-Requested-With': 'XMLHttpRequest', Accept: 'application/json'};
    if (method !== 'GET') {
        headers['X-CSRF-Token'] = csrfToken();
    }
    let response: Response;
    try {
        response = await fetch(url, {method, headers, credentials: 'include'});
    } catch (err) {
        throw new ApiError(0, err instanceof Error ? err.message : String(err));
    }
    let body: unknown = null;
    try {
        body = await response.json();
    } catch {
        // An empty or HTML body (a proxy's error page) keeps body null.
    }
    if (!response.ok) {
        // The plugin says "error"; Mattermost's own API says "message".
        const b = body as {error?: unknown; message?: unknown} | null;
        const text = b?.error ?? b?.message;
        throw new ApiError(response.status, typeof text === 'string' && text !== '' ? text : `HTTP ${response.status}`);
    }
    return body as T;
}

// Go encodes empty slices as null; the components expect arrays.
function normalize(d: ConfirmationDetail): ConfirmationDetail {
    return {...d, notes: d.notes ?? [], files: d.files ?? []};
}

function confirmationPath(id: string): string {
    return `/confirmations/${encodeURIComponent(id)}`;
}

export async function listConfirmations(): Promise<ConfirmationDetail[]> {
    const body = await request<{confirmations?: ConfirmationDetail[] | null}>('GET', '/confirmations');
    return (body?.confirmations ?? []).map(normalize);
}

export async function getConfirmation(id: string): Promise<ConfirmationDetail> {
    return normalize(await request<ConfirmationDetail>('GET', confirmationPath(id)));
}

export async function answerConfirmation(id: string, answer: Answer): Promise<ConfirmationDetail> {
    return normalize(await request<ConfirmationDetail>('POST', `${confirmationPath(id)}/${answer}`));
}
