// Renders read_file's answer (tools.FileResult on the server, with the
// tool's content): an image as read_file returned it (upright, scaled), a
// text, PDF or Office window as numbered lines under the header, an archive
// as a table of its entries. Every string is set as text, never parsed as
// HTML; the only image shown is read_file's own, given as data.

import {safeHref} from './markdown';
import {formatSize} from './posts';

export type FileResult = {
    file_id?: string;
    name?: string;
    kind?: string;
    detected?: string;
    mismatch?: string;
    size?: number;
    read?: boolean;
    total_lines?: number;
    start?: number;
    end?: number;
    next_start?: number;
    image?: {width: number; height: number; original_width: number; original_height: number; turned?: boolean; scaled?: boolean};
    permalink?: string;
};
export type Content = {type: string; text?: string; mimeType?: string; data?: string};

// Lines a window shows at most: read_file's windows stop at 2000 lines.
export const maxLines = 2000;

const imageTypes = /^image\/(png|jpeg|gif|webp)$/;
const base64 = /^[A-Za-z0-9+/]+={0,2}$/;

// Splits read_file's text into its header and numbered lines ("n\tline").
export function splitText(text: string): {header: string; lines: Array<{n: string; text: string}>} {
    const cut = text.indexOf('\n\n');
    const header = cut < 0 ? text : text.slice(0, cut);
    const lines: Array<{n: string; text: string}> = [];
    if (cut >= 0) {
        for (const l of text.slice(cut + 2).split('\n')) {
            const m = (/^\s*(\d+)\t(.*)$/).exec(l);
            if (m && lines.length < maxLines) {
                lines.push({n: m[1], text: m[2]});
            }
        }
    }
    return {header, lines};
}

function el<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
    const e = doc.createElement(tag);
    if (cls) {
        e.className = cls;
    }
    if (text !== undefined) {
        e.textContent = text;
    }
    return e;
}

export function renderFile(doc: Document, root: HTMLElement, data: unknown, content: Content[] = []) {
    root.replaceChildren();
    const f = (data && typeof data === 'object' ? data : {}) as FileResult;
    const head = el(doc, 'div', 'file-head');
    head.append(el(doc, 'span', 'file-name', String(f.name ?? 'file')));
    const about = [f.kind, typeof f.size === 'number' ? formatSize(f.size) : ''].filter(Boolean).join(' · ');
    if (about) {
        head.append(el(doc, 'span', 'size', about));
    }
    const href = f.permalink ? safeHref(f.permalink) : null;
    if (href) {
        const a = el(doc, 'a', 'time', 'Open in Mattermost');
        a.href = href;
        a.target = '_blank';
        a.rel = 'noopener noreferrer';
        head.append(a);
    }
    root.append(head);

    const textBlock = content.find((c) => c.type === 'text' && typeof c.text === 'string');
    const {header, lines} = splitText(textBlock?.text ?? '');
    const img = content.find((c) => c.type === 'image');
    if (f.kind === 'image' && img?.mimeType && imageTypes.test(img.mimeType) && img.data && base64.test(img.data)) {
        const fig = el(doc, 'figure', 'image');
        const i = el(doc, 'img');
        i.src = `data:${img.mimeType};base64,${img.data}`;
        i.alt = String(f.name ?? 'image');
        if (f.image?.width && f.image.height) {
            i.width = f.image.width;
            i.height = f.image.height;
        }
        fig.append(i);
        if (f.image) {
            const notes = [`${f.image.width} × ${f.image.height}`];
            if (f.image.scaled) {
                // The original as stored; turned a quarter, it stands the other way.
                const {original_width: ow, original_height: oh, width, height} = f.image;
                const swap = f.image.turned && (ow > oh) !== (width > height);
                notes.push(`scaled from ${swap ? oh : ow} × ${swap ? ow : oh}`);
            }
            if (f.image.turned) {
                notes.push('turned upright');
            }
            fig.append(el(doc, 'figcaption', 'size', notes.join(', ')));
        }
        root.append(fig);
        return;
    }
    if (f.kind === 'archive' && lines.length > 0) {
        root.append(el(doc, 'div', 'about', header));
        const table = el(doc, 'table', 'entries');
        const hr = el(doc, 'tr');
        hr.append(el(doc, 'th', undefined, 'Entry'), el(doc, 'th', undefined, 'Size'));
        table.append(hr);
        for (const l of lines) {
            const tab = l.text.lastIndexOf('\t');
            const tr = el(doc, 'tr');
            tr.append(el(doc, 'td', 'entry', tab < 0 ? l.text : l.text.slice(0, tab)), el(doc, 'td', 'size', tab < 0 ? '' : l.text.slice(tab + 1)));
            table.append(tr);
        }
        root.append(table);
        return;
    }
    if (header) {
        root.append(el(doc, 'div', 'about', header));
    }
    if (lines.length > 0) {
        if (f.start && f.end && f.total_lines) {
            const title = f.kind === 'pdf' ? 'Text of the PDF' : 'Text';
            root.append(el(doc, 'h3', 'window', `${title}: lines ${f.start}–${f.end} of ${f.total_lines}`));
        }
        const pre = el(doc, 'div', 'lines');
        for (const l of lines) {
            const row = el(doc, 'div', 'line');
            row.append(el(doc, 'span', 'n', l.n), el(doc, 'span', 't', l.text));
            pre.append(row);
        }
        root.append(pre);
        if (f.next_start) {
            root.append(el(doc, 'div', 'more', `More from line ${f.next_start}: ask to read on.`));
        }
    } else if (!header) {
        root.append(el(doc, 'div', 'empty', 'Nothing of this file can be shown here.'));
    }
}
