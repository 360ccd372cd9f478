// The file view renders read_file's answer; nothing a file name or an
// archive entry's name holds can run or load.
import {beforeEach, describe, expect, it} from 'vitest';

import {namePayloads as payloads} from './xss_payloads';

import {maxLines, renderFile, splitText, textPages} from '../src/views/files';
import {maxPagePixels, maxPagesDrawn, maxPageWidth, maxPdfBytes, maxTotalPixels, pageSize, pdfBytes, type PdfLib, type PdfPage} from '../src/views/pdfpages';

// inert: no element but the view's own, no handler, no link but http(s),
// no image but one given as data.
function inert(root: HTMLElement) {
    expect(root.querySelectorAll('script,svg,iframe,object,embed,style,link,meta,form,math,details,body,button,video,audio,source,input,marquee,base,template,noscript,x').length).toBe(0);
    for (const e of Array.from(root.querySelectorAll('*'))) {
        for (const a of Array.from(e.attributes)) {
            expect(a.name.startsWith('on'), `${e.tagName} ${a.name}`).toBe(false);
        }
    }
    for (const a of Array.from(root.querySelectorAll('a'))) {
        expect(a.getAttribute('href') ?? '').toMatch(/^https?:\/\/[^@]*$/);
    }
    for (const i of Array.from(root.querySelectorAll('img'))) {
        expect(i.getAttribute('src') ?? '').toMatch(/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$/);
    }
    expect((window as unknown as {pwned?: number}).pwned).toBeUndefined();
}

const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('the file view', () => {
    let root: HTMLElement;
    beforeEach(() => {
        document.body.innerHTML = '<main id="root"></main>';
        root = document.getElementById('root') as HTMLElement;
    });

    it('shows an image read_file returned, in a frame of its own shape at most 640 px high, with how it was turned and scaled in the header', () => {
        renderFile(document, root, {name: 'photo.jpg',
            kind: 'image',
            detected: 'JPEG image',
            size: 4000000,
            permalink: 'https://mm.example/t/pl/abc',
            image: {width: 1176, height: 1568, original_width: 4032, original_height: 3024, turned: true, scaled: true}},
        [{type: 'text', text: 'photo.jpg: JPEG image'}, {type: 'image', mimeType: 'image/jpeg', data: png}]);
        const img = root.querySelector('img') as HTMLImageElement;
        expect(img.getAttribute('src')).toBe(`data:image/jpeg;base64,${png}`);

        // Drawn at most 640 px high, its frame shaped as the photo: no empty strip beside it.
        expect([img.width, img.height]).toEqual([480, 640]);
        expect(root.querySelector('.file-facts')?.textContent).toBe('JPEG image · 3.8 MB · shown 1176 × 1568, scaled from 3024 × 4032 · turned upright');
        expect((root.querySelector('a') as HTMLAnchorElement).href).toBe('https://mm.example/t/pl/abc');
        inert(root);
    });

    it('shows no image whose type or data is not an image read_file gives', () => {
        for (const c of [{mimeType: 'image/svg+xml', data: png}, {mimeType: 'text/html', data: png}, {mimeType: 'image/png', data: 'x" onerror="window.pwned=1'}]) {
            renderFile(document, root, {name: 'x.png', kind: 'image'}, [{type: 'image', ...c}]);
            expect(root.querySelectorAll('img').length).toBe(0);
            inert(root);
        }
    });

    it('shows a window of text as numbered lines under a header for the person, not the model\'s', () => {
        const text = 'notes.txt: UTF-8 text, lines 1-3 of 10 (file_id=abc; next: read_file(file_id="abc", offset=4))\n\n 1\tPage one\n 2\t<script>window.pwned=1</script>\n 3\tthird';
        renderFile(document, root, {name: 'notes.txt', kind: 'text', detected: 'UTF-8 text', size: 2048, start: 1, end: 3, total_lines: 10, next_start: 4}, [{type: 'text', text}]);
        expect(root.querySelector('.file-facts')?.textContent).toBe('UTF-8 text · 2.0 KB · lines 1–3 of 10');
        expect(root.textContent).not.toContain('file_id');
        expect(root.textContent).not.toContain('read_file');
        expect(Array.from(root.querySelectorAll('.line .n')).map((n) => n.textContent)).toEqual(['1', '2', '3']);
        expect(root.querySelectorAll('.line .t')[1].textContent).toBe('<script>window.pwned=1</script>');
        expect(root.textContent).toContain('More from line 4');
        inert(root);
    });

    it('keeps thirty XSS payloads in file names and archive entry names as text', () => {
        const lines = payloads.map((p, i) => ` ${i + 1}\t${p}/evil\t${i} B`).join('\n');
        expect(payloads.length).toBe(30);
        for (const name of payloads) {
            renderFile(document, root, {name, kind: 'archive', size: 10, start: 1, end: 30, total_lines: 30, permalink: ['java', 'script:window.pwned=1'].join('')},
                [{type: 'text', text: `${name}: zip archive, ${payloads.length} entries\n\n${lines}`}]);
            expect(root.querySelector('.file-name')?.textContent).toBe(name);
            expect(root.querySelector('.file-facts')?.textContent).toBe('Archive · 10 B · entries 1–30 of 30');
            const entries = Array.from(root.querySelectorAll('.entries .entry')).map((e) => e.textContent);
            expect(entries).toEqual(payloads.map((p) => `${p}/evil`));
            expect(root.querySelectorAll('a').length).toBe(0);
            inert(root);
        }
    });

    it('shows at most the lines a window holds, and says so when nothing can be shown', () => {
        const many = Array.from({length: maxLines + 5}, (_, i) => `${i + 1}\tx`).join('\n');
        expect(splitText(`h\n\n${many}`).lines.length).toBe(maxLines);
        renderFile(document, root, null, []);
        expect(root.textContent).toContain('Nothing of this file can be shown here.');
    });
});

// withoutObserver runs f where the view cannot tell what is in view: it
// draws every page laid out.
async function withoutObserver<T>(f: () => Promise<T>): Promise<T> {
    const win = window as unknown as {IntersectionObserver: unknown};
    const real = win.IntersectionObserver;
    win.IntersectionObserver = undefined;
    try {
        return await f();
    } finally {
        win.IntersectionObserver = real;
    }
}

// A PDF of n pages of the given size (points) as a fake pdf.js, recording
// what it was asked to draw.
function fakePdf(n: number, w = 612, h = 792, fail = false) {
    const drawn: number[] = [];
    const lib: PdfLib = {
        open: async () => {
            if (fail) {
                throw new Error('Invalid PDF structure');
            }
            return {
                numPages: n,
                getPage: async (k: number): Promise<PdfPage> => ({
                    getViewport: ({scale}) => ({width: w * scale, height: h * scale}),
                    render: ({canvas}) => {
                        drawn.push(k);
                        expect(canvas.width * canvas.height).toBeLessThanOrEqual(maxPagePixels);
                        return {promise: Promise.resolve()};
                    },
                }),
            };
        },
    };
    return {lib, drawn};
}

const pdfB64 = btoa('%PDF-1.4\n% a tiny PDF the fake draws\n');
const pdfResult = {name: 'minutes.pdf', kind: 'pdf', detected: 'PDF document', size: 1200, media_type: 'application/pdf', start: 1, end: 2, total_lines: 2};
const pdfContent = (blob = pdfB64) => [
    {type: 'text', text: 'minutes.pdf: PDF document (file_id=abc)\n\n 1\tHarbour minutes\n 2\tapproved'},
    {type: 'resource', resource: {uri: 'mattermost-file://abc/minutes.pdf', mimeType: 'application/pdf', blob}},
];

describe('the file view of a PDF', () => {
    let root: HTMLElement;
    beforeEach(() => {
        document.body.innerHTML = '<main id="root"></main>';
        root = document.getElementById('root') as HTMLElement;
    });

    it('draws each page of a PDF the answer carries on a canvas, with page k of n', async () => {
        const {lib, drawn} = fakePdf(3);
        await withoutObserver(() => renderFile(document, root, pdfResult, pdfContent(), lib));
        await new Promise((r) => setTimeout(r, 0));
        expect(root.querySelectorAll('canvas.page-canvas').length).toBe(3);
        expect(Array.from(root.querySelectorAll('canvas')).map((c) => c.dataset.drawn)).toEqual(['true', 'true', 'true']);
        expect(Array.from(root.querySelectorAll('canvas')).every((c) => c.width <= maxPageWidth)).toBe(true);
        expect(Array.from(root.querySelectorAll('.page figcaption')).map((c) => c.textContent)).toEqual(['Page 1 of 3', 'Page 2 of 3', 'Page 3 of 3']);
        expect(drawn).toEqual([1, 2, 3]);
        expect(root.querySelector('.file-facts')?.textContent).toBe('PDF document · 1.2 KB · 3 pages');
        expect(root.querySelectorAll('.line').length).toBe(0);
        inert(root);
    });

    it('draws a page only once it comes into view', async () => {
        const {lib, drawn} = fakePdf(3);
        const observed: Element[] = [];
        let seen: (e: Array<{isIntersecting: boolean; target: Element}>, o: {unobserve(e: Element): void}) => void = () => undefined;
        const win = window as unknown as {IntersectionObserver: unknown};
        const real = win.IntersectionObserver;
        win.IntersectionObserver = class {
            constructor(cb: typeof seen) {
                seen = cb;
            }
            observe(e: Element) {
                observed.push(e);
            }
            unobserve() {
                return undefined;
            }
        };
        try {
            await renderFile(document, root, pdfResult, pdfContent(), lib);
        } finally {
            win.IntersectionObserver = real;
        }
        expect(observed.length).toBe(3);
        await new Promise((r) => setTimeout(r, 0));
        expect(drawn).toEqual([]);
        seen([{isIntersecting: false, target: observed[0]}, {isIntersecting: true, target: observed[1]}], {unobserve: () => undefined});
        await new Promise((r) => setTimeout(r, 0));
        expect(drawn).toEqual([2]);
    });

    it('draws at most the first pages and says what was left out', async () => {
        const {lib} = fakePdf(37);
        await renderFile(document, root, pdfResult, pdfContent(), lib);
        expect(root.querySelectorAll('canvas').length).toBe(maxPagesDrawn);
        expect(root.querySelector('.file-facts')?.textContent).toContain(`pages 1–${maxPagesDrawn} of 37`);
        expect(root.querySelector('.pdf .note')?.textContent).toBe(`Pages 1–${maxPagesDrawn} of 37 are drawn here: open the PDF in Mattermost for the rest.`);
    });

    it('keeps every canvas and all of them together within their pixel caps', async () => {
        // Long strips of pages: the per-page cap makes each smaller, the
        // total cap stops before all ten are laid out.
        const {lib} = fakePdf(maxPagesDrawn, 612, 612 * 8);
        await renderFile(document, root, pdfResult, pdfContent(), lib);
        const canvases = Array.from(root.querySelectorAll('canvas'));
        const total = canvases.reduce((sum, c) => sum + (c.width * c.height), 0);
        expect(canvases.every((c) => c.width * c.height <= maxPagePixels)).toBe(true);
        expect(total).toBeLessThanOrEqual(maxTotalPixels);
        expect(canvases.length).toBeLessThan(maxPagesDrawn);
        expect(root.querySelector('.pdf .note')?.textContent).toContain('would not fit');
        expect(pageSize({width: 612, height: 792}, 366, 3, maxTotalPixels).width).toBe(732); // a phone at 3x is drawn at 2x
    });

    it('shows the text, and says why, when the pages cannot be drawn', async () => {
        const {lib} = fakePdf(3, 612, 792, true);
        await renderFile(document, root, pdfResult, pdfContent(), lib);
        expect(root.querySelectorAll('canvas').length).toBe(0);
        expect(Array.from(root.querySelectorAll('.line .t')).map((t) => t.textContent)).toEqual(['Harbour minutes', 'approved']);
        expect(root.querySelector('.note')?.textContent).toBe('Only the PDF\'s text is shown: its pages could not be drawn here.');
    });

    it('shows only the text, and says so, for a PDF over the media cap or a later window', async () => {
        const {lib, drawn} = fakePdf(3);
        await renderFile(document, root, {...pdfResult, size: maxPdfBytes + 1, media_type: undefined}, pdfContent().slice(0, 1), lib);
        expect(root.querySelector('.note')?.textContent).toBe('Only the PDF\'s text is shown: at 3.8 MB it is over the 3.8 MB this view draws as pages.');
        expect(root.querySelector('.file-facts')?.textContent).toBe('PDF document · 3.8 MB · lines 1–2 of 2');
        await renderFile(document, root, {...pdfResult, start: 501, end: 502, total_lines: 900}, pdfContent().slice(0, 1), lib);
        expect(root.querySelector('.note')?.textContent).toContain('this is a later part of the text');
        expect(drawn).toEqual([]);
        expect(root.querySelectorAll('.line').length).toBe(2);
    });

    it('decodes only base64 PDFs within the cap, never anything else as a PDF', () => {
        expect(pdfBytes(pdfB64)?.length).toBe(atob(pdfB64).length);
        expect(pdfBytes(btoa('<html><script>window.pwned=1</script>'))).toBeNull();
        expect(pdfBytes('%PDF-" onload="x')).toBeNull();
        expect(pdfBytes('A'.repeat((Math.ceil(maxPdfBytes / 3) * 4) + 4))).toBeNull();
        expect(pdfBytes(undefined)).toBeNull();
    });

    it('groups a PDF\'s text into pages where its text marks them', () => {
        const pages = textPages([{n: '1', text: 'one'}, {n: '2', text: 'end\fstart two'}, {n: '3', text: 'two ⟨U+000C⟩'}, {n: '4', text: 'three'}]);
        expect(pages?.map((p) => p.map((l) => l.text).join('|'))).toEqual(['one|end', 'start two|two ', 'three']);
        expect(textPages([{n: '1', text: 'no breaks'}])).toBeNull();
    });

    it('keeps thirty XSS payloads in a PDF\'s name as text', async () => {
        for (const name of payloads) {
            const {lib} = fakePdf(1);
            await renderFile(document, root, {...pdfResult, name}, pdfContent(), lib); // eslint-disable-line no-await-in-loop
            expect(root.querySelector('.file-name')?.textContent).toBe(name);
            inert(root);
        }
    });
});
