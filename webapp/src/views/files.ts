// Renders read_file's answer (tools.FileResult on the server, with the
// tool's content) for the person: a header built from the structured result
// (name, type, size, which part is shown; never the model's header with its
// ids and next calls), then an image as read_file returned it (upright,
// scaled), a PDF's pages (pdfpages.ts) or its text, a text or Office window
// as numbered lines, an archive as a table of its entries. Every string is
// set as text, never parsed as HTML; the only image shown is read_file's
// own, given as data.

import {safeHref} from './markdown';
import {drawPages, maxPdfBytes, pdfBytes, type PdfLib} from './pdfpages';
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
    image?: {width: number; height: number; original_width: number; original_height: number; turned?: boolean; scaled?: boolean; frames?: number};
    media_type?: string;
    permalink?: string;
};
export type Content = {type: string; text?: string; mimeType?: string; data?: string; resource?: {uri?: string; mimeType?: string; blob?: string}};

// Lines a window shows at most: read_file's windows stop at 2000 lines.
export const maxLines = 2000;

// The tallest an image is drawn, in CSS pixels: a photo fits a laptop's
// window whole (style.ts's .image img keeps the width within the page).
export const maxShownHeight = 640;

const imageTypes = /^image\/(png|jpeg|gif|webp)$/;
const base64 = /^[A-Za-z0-9+/]+={0,2}$/;

// A form feed, as extracted or as the server marks a hidden character,
// ends a page of a PDF's text.
const pageBreak = /\f|⟨U\+000C⟩/;

const kindNames: Record<string, string> = {
    text: 'Text',
    document: 'Word document',
    presentation: 'PowerPoint presentation',
    spreadsheet: 'Excel spreadsheet',
    archive: 'Archive',
    image: 'Image',
    audio: 'Audio',
    video: 'Video',
    pdf: 'PDF document',
    other: 'File',
};

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

// imageFacts says what size the image is shown at, and of what original.
function imageFacts(i: NonNullable<FileResult['image']>): string[] {
    const facts = [`${i.width} × ${i.height}`];
    if (i.scaled) {
        // The original as stored; turned a quarter, it stands the other way.
        const swap = i.turned && (i.original_width > i.original_height) !== (i.width > i.height);
        facts[0] = `shown ${i.width} × ${i.height}, scaled from ${swap ? i.original_height : i.original_width} × ${swap ? i.original_width : i.original_height}`;
    }
    if (i.turned) {
        facts.push('turned upright');
    }
    if (i.frames && i.frames > 1) {
        facts.push(`first of ${i.frames} frames`);
    }
    return facts;
}

// windowFact says which part of a windowed file is shown.
export function windowFact(f: FileResult): string {
    if (!f.total_lines || !f.start || !f.end) {
        return '';
    }
    const what = f.kind === 'archive' ? 'entries' : 'lines';
    return `${what} ${f.start}–${f.end} of ${f.total_lines}`;
}

// facts is the header's line about the file, for the person.
export function facts(f: FileResult): string[] {
    const out = [f.detected || kindNames[f.kind ?? ''] || '', typeof f.size === 'number' ? formatSize(f.size) : ''];
    if (f.image) {
        out.push(...imageFacts(f.image));
    }
    out.push(windowFact(f));
    return out.filter(Boolean);
}

function renderHead(doc: Document, root: HTMLElement, f: FileResult): HTMLElement {
    const head = el(doc, 'div', 'file-head');
    head.append(el(doc, 'span', 'file-name', String(f.name || 'File')));
    const about = el(doc, 'span', 'size file-facts', facts(f).join(' · '));
    head.append(about);
    const href = f.permalink ? safeHref(f.permalink) : null;
    if (href) {
        const a = el(doc, 'a', 'time', 'Open in Mattermost');
        a.href = href;
        a.target = '_blank';
        a.rel = 'noopener noreferrer';
        head.append(a);
    }
    root.append(head);
    if (f.mismatch) {
        root.append(el(doc, 'div', 'note', String(f.mismatch)));
    }
    return about;
}

function renderLines(doc: Document, lines: Array<{n: string; text: string}>): HTMLElement {
    const pre = el(doc, 'div', 'lines');
    for (const l of lines) {
        const row = el(doc, 'div', 'line');
        row.append(el(doc, 'span', 'n', l.n), el(doc, 'span', 't', l.text));
        pre.append(row);
    }
    return pre;
}

// textPages groups a window's lines into the PDF's pages when its text
// marks where pages end; null when it does not.
export function textPages(lines: Array<{n: string; text: string}>): Array<Array<{n: string; text: string}>> | null {
    if (!lines.some((l) => pageBreak.test(l.text))) {
        return null;
    }
    const pages: Array<Array<{n: string; text: string}>> = [[]];
    for (const l of lines) {
        const parts = l.text.split(pageBreak);
        pages[pages.length - 1].push({n: l.n, text: parts[0]});
        for (const p of parts.slice(1)) {
            pages.push(p === '' ? [] : [{n: l.n, text: p}]);
        }
    }
    return pages.filter((p) => p.some((l) => l.text.trim() !== ''));
}

// whyOnlyText says plainly why a PDF shows as its text here.
export function whyOnlyText(f: FileResult, withBytes: boolean): string {
    if ((f.start ?? 1) > 1) {
        return 'Only the PDF\'s text is shown: this is a later part of the text Mattermost extracted; the pages come with the first part.';
    }
    if (typeof f.size === 'number' && f.size > maxPdfBytes) {
        return `Only the PDF's text is shown: at ${formatSize(f.size)} it is over the ${formatSize(maxPdfBytes)} this view draws as pages.`;
    }
    if (withBytes) {
        return 'Only the PDF\'s text is shown: its pages could not be drawn here.';
    }
    return 'Only the PDF\'s text is shown: the PDF itself did not come with this answer.';
}

function renderText(doc: Document, box: HTMLElement, f: FileResult, lines: Array<{n: string; text: string}>, note: string) {
    if (note) {
        box.append(el(doc, 'div', 'note', note));
    }
    const pages = f.kind === 'pdf' ? textPages(lines) : null;
    if (pages) {
        pages.forEach((p, i) => {
            box.append(el(doc, 'h3', 'window', f.start === 1 ? `Page ${i + 1}` : `Page ${i + 1} of this part`), renderLines(doc, p));
        });
    } else {
        box.append(renderLines(doc, lines));
    }
    if (f.next_start) {
        box.append(el(doc, 'div', 'more', `More from line ${f.next_start}: ask to read on.`));
    }
}

// renderFile draws the answer into root. With pdf, a PDF the answer carries
// is drawn as pages; the promise settles once they are laid out (or the
// text shown instead).
export function renderFile(doc: Document, root: HTMLElement, data: unknown, content: Content[] = [], pdf?: PdfLib): Promise<void> {
    root.replaceChildren();
    const f = (data && typeof data === 'object' ? data : {}) as FileResult;
    const about = renderHead(doc, root, f);

    const textBlock = content.find((c) => c.type === 'text' && typeof c.text === 'string');
    const {lines} = splitText(textBlock?.text ?? '');
    const img = content.find((c) => c.type === 'image');
    if (f.kind === 'image' && img?.mimeType && imageTypes.test(img.mimeType) && img.data && base64.test(img.data)) {
        const fig = el(doc, 'figure', 'image');
        const i = el(doc, 'img');
        i.src = `data:${img.mimeType};base64,${img.data}`;
        i.alt = String(f.name || 'image');
        if (f.image?.width && f.image.height) {
            // The image is given the size it is drawn at (at most
            // maxShownHeight high, its shape kept), so its frame is the
            // image's own: a box of the full size held down by max-height
            // alone keeps its full width beside a portrait photo.
            const w = Math.max(1, Math.trunc(Number(f.image.width)) || 1);
            const h = Math.max(1, Math.trunc(Number(f.image.height)) || 1);
            const scale = Math.min(1, maxShownHeight / h);
            i.width = Math.max(1, Math.round(w * scale));
            i.height = Math.max(1, Math.round(h * scale));
        }
        fig.append(i);
        root.append(fig);
        return Promise.resolve();
    }
    if (f.kind === 'archive' && lines.length > 0) {
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
        return Promise.resolve();
    }
    if (f.kind === 'pdf') {
        const blob = content.find((c) => c.type === 'resource' && c.resource?.mimeType === 'application/pdf')?.resource?.blob;
        const bytes = pdfBytes(blob);
        const box = el(doc, 'div', 'pdf');
        root.append(box);
        if (bytes && pdf) {
            box.append(el(doc, 'div', 'more', 'Drawing the pages…'));
            const pages = el(doc, 'div', 'pages');
            return drawPages(doc, pages, bytes, pdf).then((drawn) => {
                box.replaceChildren(pages);
                about.textContent = [...facts({...f, total_lines: 0}), drawn.shown === drawn.pages ? `${drawn.pages} ${drawn.pages === 1 ? 'page' : 'pages'}` : `pages 1–${drawn.shown} of ${drawn.pages}`].join(' · ');
                if (drawn.cut) {
                    box.append(el(doc, 'div', 'note', `Pages 1–${drawn.shown} of ${drawn.pages} are drawn here${drawn.cut === 'pixels' ? ' (the rest would not fit this view\'s memory)' : ''}: open the PDF in Mattermost for the rest.`));
                }
            }, () => {
                box.replaceChildren();
                renderText(doc, box, f, lines, whyOnlyText(f, true));
            });
        }
        if (lines.length > 0) {
            renderText(doc, box, f, lines, whyOnlyText(f, Boolean(bytes)));
        } else {
            box.append(el(doc, 'div', 'empty', 'This PDF has no text Mattermost could extract, and its pages did not come with this answer: open it in Mattermost.'));
        }
        return Promise.resolve();
    }
    if (lines.length > 0) {
        renderText(doc, root, f, lines, '');
    } else {
        root.append(el(doc, 'div', 'empty', f.read === false && f.permalink ? 'This file is not shown here: open it in Mattermost.' : 'Nothing of this file can be shown here.'));
    }
    return Promise.resolve();
}
