// pdf.js ships no types for its worker module; the file view only hands
// the module to pdf.js as its in-thread worker.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs';
