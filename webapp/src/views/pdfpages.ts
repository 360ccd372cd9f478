// Draws the pages of the PDF read_file returned (an embedded
// application/pdf resource) to canvases. The PDF library is handed in
// (file.ts gives pdf.js, run in this thread: the view's CSP allows no
// worker, no eval and no load), so the caps and the fallback are tested
// without it. Pages are drawn one at a time as they come into view, each
// canvas bounded in pixels, and only the first few: the view is a glance,
// the person opens the whole PDF in Mattermost.

// Pages drawn at most; a note says how many more the PDF has.
export const maxPagesDrawn = 10;

// Canvas pixels one page may take (about 1600 × 1900): enough for a
// laptop-wide page on a 2x screen, a few MB of memory each.
export const maxPagePixels = 3_000_000;

// Canvas pixels all pages may take together (about 96 MB of RGBA): a long
// PDF of large pages stops before the tab runs out of memory.
export const maxTotalPixels = 24_000_000;

// The largest PDF read_file returns as itself (fileview.MaxMediaBytes on
// the server); a resource beyond it is not ours and is not decoded.
export const maxPdfBytes = 3_932_160;

// The sharpest a page is drawn for a high-density screen.
const maxPixelRatio = 2;

// The widest a page is shown, in CSS pixels: on a laptop a page as wide as
// the view would be taller than the screen (the styles cap it the same).
export const maxPageWidth = 640;

// The width a page is drawn for when the view cannot tell its own.
const defaultWidth = maxPageWidth;

export type Viewport = {width: number; height: number};
export type PdfPage = {
    getViewport(o: {scale: number}): Viewport;
    render(o: {canvas: HTMLCanvasElement; canvasContext?: CanvasRenderingContext2D; viewport: Viewport}): {promise: Promise<unknown>};
    cleanup?(): unknown;
};
export type PdfDocument = {numPages: number; getPage(n: number): Promise<PdfPage>};
export type PdfLib = {open(data: Uint8Array): Promise<PdfDocument>};

export type Drawn = {pages: number; shown: number; cut: 'pages' | 'pixels' | ''};

const base64 = /^[A-Za-z0-9+/]+={0,2}$/;

// pdfBytes decodes the PDF a resource block holds, or null when it is not
// one this view draws: not base64, over the cap, or not starting like a PDF.
export function pdfBytes(blob: string | undefined): Uint8Array | null {
    if (!blob || blob.length > Math.ceil(maxPdfBytes / 3) * 4 || !base64.test(blob)) {
        return null;
    }
    let raw: string;
    try {
        raw = atob(blob);
    } catch {
        return null;
    }
    if (!raw.startsWith('%PDF-')) {
        return null;
    }
    const out = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) {
        out[i] = raw.charCodeAt(i);
    }
    return out;
}

// pageSize is a page's canvas size in pixels and its scale: the width
// given at the screen's density, within the page's and what is left of
// the total budget.
export function pageSize(page: Viewport, width: number, ratio: number, budget: number): {width: number; height: number; scale: number} {
    let scale = (width / page.width) * Math.min(Math.max(ratio, 1), maxPixelRatio);
    const cap = Math.min(maxPagePixels, budget);
    const pixels = page.width * page.height * scale * scale;
    if (pixels > cap) {
        scale *= Math.sqrt(cap / pixels);
    }
    return {width: Math.max(1, Math.floor(page.width * scale)), height: Math.max(1, Math.floor(page.height * scale)), scale};
}

function el<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, cls: string, text?: string): HTMLElementTagNameMap[K] {
    const e = doc.createElement(tag);
    e.className = cls;
    if (text !== undefined) {
        e.textContent = text;
    }
    return e;
}

// drawPages lays out the first pages of the PDF in box, each a canvas
// with "Page k of n", and draws each as it nears the view. It resolves once
// the pages are laid out (drawing goes on); it rejects when the PDF cannot
// be opened, and then box is left empty for the caller's fallback.
export async function drawPages(doc: Document, box: HTMLElement, data: Uint8Array, lib: PdfLib): Promise<Drawn> {
    const pdf = await lib.open(data);
    const n = pdf.numPages;
    const width = Math.min(box.clientWidth || doc.documentElement.clientWidth || defaultWidth, maxPageWidth);
    const ratio = doc.defaultView?.devicePixelRatio ?? 1;
    let budget = maxTotalPixels;
    let cut: Drawn['cut'] = n > maxPagesDrawn ? 'pages' : '';
    const todo: Array<{page: PdfPage; canvas: HTMLCanvasElement; scale: number}> = [];
    for (let k = 1; k <= Math.min(n, maxPagesDrawn); k++) {
        const page = await pdf.getPage(k); // eslint-disable-line no-await-in-loop -- pages are read in order, one at a time
        if (budget < maxPagePixels / 8) {
            // What is left would draw a page too small to read.
            cut = 'pixels';
            break;
        }
        const size = pageSize(page.getViewport({scale: 1}), width, ratio, budget);
        budget -= size.width * size.height;
        const fig = el(doc, 'figure', 'page');
        const canvas = el(doc, 'canvas', 'page-canvas');
        canvas.width = size.width;
        canvas.height = size.height;
        canvas.setAttribute('role', 'img');
        canvas.setAttribute('aria-label', `Page ${k} of ${n}`);
        fig.append(canvas, el(doc, 'figcaption', 'size', `Page ${k} of ${n}`));
        box.append(fig);
        todo.push({page, canvas, scale: size.scale});
    }
    drawLazily(doc, todo);
    return {pages: n, shown: todo.length, cut};
}

// drawLazily draws each page once its canvas nears the view, one page at
// a time, in order of coming into view.
function drawLazily(doc: Document, todo: Array<{page: PdfPage; canvas: HTMLCanvasElement; scale: number}>) {
    let chain = Promise.resolve();
    const draw = (t: {page: PdfPage; canvas: HTMLCanvasElement; scale: number}) => {
        chain = chain.then(async () => {
            try {
                await t.page.render({canvas: t.canvas, viewport: t.page.getViewport({scale: t.scale})}).promise;
                t.canvas.dataset.drawn = 'true';
            } catch {
                t.canvas.dataset.drawn = 'failed';
                t.canvas.setAttribute('aria-label', 'This page could not be drawn');
            }
            t.page.cleanup?.();
        });
    };
    const IO = doc.defaultView?.IntersectionObserver;
    if (!IO) {
        todo.forEach(draw);
        return;
    }
    const byCanvas = new Map(todo.map((t) => [t.canvas as Element, t]));
    const seen = new IO((entries, observer) => {
        for (const e of entries) {
            const t = byCanvas.get(e.target);
            if (e.isIntersecting && t) {
                observer.unobserve(e.target);
                byCanvas.delete(e.target);
                draw(t);
            }
        }
    }, {rootMargin: '400px 0px'});
    todo.forEach((t) => seen.observe(t.canvas));
}
