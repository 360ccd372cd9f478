// Renders request_file's view (ui://mattermost/upload) and sends the file:
// what the assistant asked for (its words, in the frame the pending writes
// use), a drop zone and file picker, the chosen file's name, size and type,
// progress, then the sha256 and "done", or the refusal and what to do.
// The file goes to the request's drop URL on this Mattermost, the one
// origin the page may connect to, with no credentials: the URL is one.

import {safeHref} from './markdown';
import {openLink} from './pending_render';
import {formatSize, formatTime, type Options} from './posts';

export const requestMetaKey = 'mattermost/file_request';

export type GivenFile = {name: string; size: number; type?: string; sha256?: string};
export type FileRequest = {id?: string; state?: string; page_url?: string; expires_at?: string; file?: GivenFile};
export type RequestView = {purpose?: string; types?: string[]; types_text?: string; max_size?: number; drop_url?: string};
export type Shown = {request: FileRequest; view: RequestView};

// Outcome is the drop URL's JSON answer.
export type Outcome = {state?: string; message?: string; name?: string; size?: number; type?: string; sha256?: string};

// requestOf reads the request from request_file's structured result and
// what the view shows of it from the result's _meta.
export function requestOf(structured: unknown, meta: unknown): Shown | null {
    const r = structured as FileRequest | null;
    if (!r || typeof r !== 'object' || typeof r.state !== 'string') {
        return null;
    }
    const m = (meta && typeof meta === 'object' ? (meta as Record<string, unknown>)[requestMetaKey] : null) as RequestView | null;
    return {request: r, view: m && typeof m === 'object' ? m : {}};
}

// dropHref keeps the drop URL only if it is an http(s) URL of a plugin's
// drop route: the view sends the person's file nowhere else.
export function dropHref(raw: unknown): string | null {
    const href = typeof raw === 'string' ? safeHref(raw) : null;
    if (!href) {
        return null;
    }
    return (/^\/(?:[^/]+\/)*plugins\/[^/]+\/drop\/[a-z0-9]{26}\/[0-9a-f]{32}\/[0-9a-f]{64}$/).test(new URL(href).pathname) ? href : null;
}

function el(doc: Document, tag: string, cls: string, text?: string): HTMLElement {
    const e = doc.createElement(tag);
    e.className = cls;
    if (text !== undefined) {
        e.textContent = text;
    }
    return e;
}

// Sender sends a file to the drop URL and reports progress (0 to 1); it
// resolves with the HTTP status and the answer.
export type Sender = (url: string, file: File, progress: (done: number) => void) => Promise<{status: number; outcome: Outcome}>;

// sendFile is the browser's Sender: a PUT of the raw file, without
// credentials, through XMLHttpRequest for its upload progress.
export const sendFile: Sender = (url, file, progress) => new Promise((resolve) => {
    const x = new XMLHttpRequest();
    x.open('PUT', url);
    x.withCredentials = false;
    x.setRequestHeader('X-File-Name', encodeURIComponent(file.name));

    // The size the file has: a body cut short on the way is refused.
    x.setRequestHeader('X-File-Size', String(file.size));
    x.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    x.upload.onprogress = (e) => {
        if (e.lengthComputable && e.total > 0) {
            progress(e.loaded / e.total);
        }
    };
    x.onload = () => {
        let outcome: Outcome = {};
        try {
            outcome = JSON.parse(x.responseText) as Outcome;
        } catch {
            // not the plugin's answer: the status says enough
        }
        resolve({status: x.status, outcome});
    };
    x.onerror = () => resolve({status: 0, outcome: {}});
    x.send(file);
});

// renderUpload draws the request into root; a waiting request with a drop
// URL takes a file, which send sends.
export function renderUpload(doc: Document, root: HTMLElement, shown: Shown, opts: Options = {}, send: Sender = sendFile, onOpen?: (href: string) => void) {
    root.replaceChildren();
    const {request: r, view: v} = shown;
    const box = el(doc, 'section', 'upload');
    box.appendChild(el(doc, 'div', 'label', 'The assistant asks you for a file'));
    if (typeof v.purpose === 'string' && v.purpose) {
        // The model's words, inert, in their own frame: nothing in them is
        // the plugin's or Mattermost's.
        const frame = el(doc, 'figure', 'ai');
        frame.appendChild(el(doc, 'figcaption', 'ai-mark', 'Written by the AI: what the file is for'));
        frame.appendChild(el(doc, 'div', 'body post purpose', v.purpose));
        box.appendChild(frame);
    }
    const facts = el(doc, 'dl', 'facts');
    const fact = (term: string, value: string, cls: string) => {
        facts.appendChild(el(doc, 'dt', '', term));
        facts.appendChild(el(doc, 'dd', cls, value));
    };
    fact('Types', v.types_text || 'any file', 'types');
    const max = Number(v.max_size) || 0;
    if (max > 0) {
        fact('Largest', formatSize(max), 'max-size');
    }
    if (r.state === 'waiting' && r.expires_at) {
        fact('Answer by', formatTime(String(r.expires_at), opts), 'until');
    }
    box.appendChild(facts);
    root.appendChild(box);

    if (r.state === 'received' && r.file) {
        box.appendChild(done(doc, 'The assistant has your file. It is attached to a post only once you accept that post.', r.file));
        return;
    }
    if (r.state === 'cancelled') {
        box.appendChild(status(doc, 'refused', 'The assistant withdrew this request: nothing was stored.'));
        return;
    }
    const drop = dropHref(v.drop_url);
    if (!drop) {
        const href = safeHref(String(r.page_url ?? ''));
        box.appendChild(status(doc, 'refused', 'This view cannot take the file here.'));
        if (href) {
            box.appendChild(openLink(doc, href, 'Give it in Mattermost', onOpen));
        }
        return;
    }
    const zone = el(doc, 'label', 'drop');
    zone.appendChild(el(doc, 'strong', '', 'Drop a file here, or choose one'));
    zone.appendChild(el(doc, 'span', 'more', 'It goes to your own workspace in Mattermost, not to the AI. It is attached to a post only once you accept that post.'));
    const input = doc.createElement('input');
    input.type = 'file';
    input.className = 'picker';
    if (Array.isArray(v.types) && v.types.length) {
        input.accept = v.types.map(String).join(',');
    }
    zone.appendChild(input);
    box.appendChild(zone);
    const chosen = el(doc, 'div', 'chosen');
    chosen.hidden = true;
    box.appendChild(chosen);
    const result = el(doc, 'div', 'result');
    result.setAttribute('role', 'status');
    box.appendChild(result);

    let busy = false;
    const take = async (file: File | undefined) => {
        if (busy || !file) {
            return;
        }
        chosen.replaceChildren(el(doc, 'div', 'name', file.name), el(doc, 'div', 'size', `${formatSize(file.size)} · ${file.type || 'unknown type'}`));
        const bar = doc.createElement('progress');
        bar.max = 100;
        bar.value = 0;
        chosen.appendChild(bar);
        chosen.hidden = false;
        result.replaceChildren();
        if (max > 0 && file.size > max) {
            result.replaceChildren(status(doc, 'refused', `The file is ${formatSize(file.size)}; the assistant asked for one of at most ${formatSize(max)}. Choose a smaller file.`));
            return;
        }
        busy = true;
        zone.classList.add('busy');
        const {status: code, outcome} = await send(drop, file, (d) => {
            bar.value = Math.round(100 * d);
        });
        busy = false;
        zone.classList.remove('busy');
        if (code === 201) {
            zone.remove();
            chosen.remove();
            result.replaceChildren(done(doc, outcome.message || 'Done: the assistant has your file.',
                {name: String(outcome.name ?? file.name), size: Number(outcome.size ?? file.size), type: outcome.type, sha256: outcome.sha256}));
            return;
        }
        const why = outcome.message || (code === 0 ? 'The upload was interrupted; nothing was kept. Check your connection and choose the file again.' : `The upload failed (${code}); nothing was kept. Choose the file again.`);
        result.replaceChildren(status(doc, 'refused', why));
    };
    input.addEventListener('change', () => {
        take(input.files?.[0]);
    });
    zone.addEventListener('dragover', (e) => {
        e.preventDefault();
        zone.classList.add('over');
    });
    zone.addEventListener('dragleave', () => zone.classList.remove('over'));
    zone.addEventListener('drop', (e) => {
        e.preventDefault();
        zone.classList.remove('over');
        take((e as DragEvent).dataTransfer?.files?.[0]);
    });
}

function status(doc: Document, state: string, text: string): HTMLElement {
    const s = el(doc, 'div', `state state-${state}`, text);
    s.setAttribute('role', 'status');
    return s;
}

function done(doc: Document, message: string, f: GivenFile): HTMLElement {
    const box = el(doc, 'div', 'given');
    box.appendChild(el(doc, 'div', 'state state-received', 'Done'));

    // The plugin's answer starts with "Done:" for the page, whose heading
    // is not this one.
    const rest = message.replace(/^Done:\s*/, '');
    box.appendChild(el(doc, 'div', 'message', rest.charAt(0).toUpperCase() + rest.slice(1)));
    box.appendChild(el(doc, 'div', 'name', f.name));
    box.appendChild(el(doc, 'div', 'size', [formatSize(Number(f.size) || 0), f.type].filter(Boolean).map(String).join(' · ')));
    if (f.sha256) {
        const sum = el(doc, 'div', 'sha256', 'sha256 ');
        sum.appendChild(el(doc, 'code', '', f.sha256));
        box.appendChild(sum);
    }
    return box;
}
