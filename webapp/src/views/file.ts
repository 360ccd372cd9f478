// The file view (ui://mattermost/file): an MCP App the client shows for
// read_file. It renders the tool's result the host hands it (structured
// content and the content blocks: the image read_file returned, the PDF,
// the text window) and nothing else: no fetch, no external load (the CSP
// forbids both). Its styles are in the page (the server's <style>).
//
// A PDF is drawn with pdf.js in this thread: the CSP allows no worker, so
// pdf.js's worker code is bundled and handed to it as its "fake worker"
// (globalThis.pdfjsWorker); no eval, no wasm, no fonts or CMaps fetched
// (there is nowhere to fetch them from).

import {App} from '@modelcontextprotocol/ext-apps/app-with-deps';
import {getDocument} from 'pdfjs-dist/legacy/build/pdf.mjs';
import * as pdfWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';

import {renderFile, type Content} from './files';
import {applyHostContext, type HostContext} from './host';
import type {PdfDocument, PdfLib} from './pdfpages';

(globalThis as {pdfjsWorker?: unknown}).pdfjsWorker = pdfWorker;

// The largest image inside a PDF pdf.js decodes, in pixels: a page's
// canvas is capped smaller anyway (pdfpages.ts).
const maxPdfImagePixels = 16_000_000;

const pdf: PdfLib = {
    open: (data) => getDocument({
        data,
        isEvalSupported: false,
        useWasm: false,
        enableXfa: false,
        maxImageSize: maxPdfImagePixels,
        verbosity: 0,
    }).promise as unknown as Promise<PdfDocument>,
};

const root = document.getElementById('root') as HTMLElement;

function applyContext(ctx: HostContext | undefined) {
    applyHostContext(ctx);
}

const app = new App({name: 'Mattermost file', version: '1.0.0'});
app.ontoolresult = (params) => {
    renderFile(document, root, params.structuredContent ?? null, (params.content ?? []) as Content[], pdf);
};
app.onhostcontextchanged = (ctx) => applyContext(ctx as HostContext);
root.textContent = 'Loading the file…';
app.connect().then(() => {
    applyContext(app.getHostContext() as HostContext);
}).catch(() => {
    root.textContent = 'This view needs a client that shows MCP Apps.';
});
