// A safe subset of Mattermost markdown, built as DOM nodes (never as HTML
// text): paragraphs, line breaks, fenced and inline code, **bold**, *italic*
// and _italic_, ~~strike~~, > quotes, - lists, [text](url) and bare links.
// What a post holds is only ever text content; a link is kept only for
// http(s) and for permalinks of the person's own server; images are never
// loaded, their markdown shows as a link.

const maxRenderChars = 20000; // a post's message is at most 16383 characters in Mattermost

export function safeHref(raw: string): string | null {
    let url: URL;
    try {
        url = new URL(raw.trim());
    } catch {
        return null;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return null;
    }
    if (url.username || url.password) {
        return null;
    }
    return url.href;
}

export function renderMarkdown(doc: Document, text: string, siteOrigin?: string): DocumentFragment {
    const out = doc.createDocumentFragment();
    const lines = text.slice(0, maxRenderChars).split('\n');
    let i = 0;
    while (i < lines.length) {
        const line = lines[i];
        if (line.startsWith('```')) {
            const code: string[] = [];
            i++;
            while (i < lines.length && !lines[i].startsWith('```')) {
                code.push(lines[i]);
                i++;
            }
            i++;
            const pre = doc.createElement('pre');
            const c = doc.createElement('code');
            c.textContent = code.join('\n');
            pre.appendChild(c);
            out.appendChild(pre);
            continue;
        }
        if (line.startsWith('>')) {
            const quoted: string[] = [];
            while (i < lines.length && lines[i].startsWith('>')) {
                quoted.push(lines[i].replace(/^> ?/, ''));
                i++;
            }
            const q = doc.createElement('blockquote');
            q.appendChild(renderMarkdown(doc, quoted.join('\n'), siteOrigin));
            out.appendChild(q);
            continue;
        }
        if ((/^\s*[-*+] /).test(line)) {
            const ul = doc.createElement('ul');
            while (i < lines.length && (/^\s*[-*+] /).test(lines[i])) {
                const li = doc.createElement('li');
                inline(doc, li, lines[i].replace(/^\s*[-*+] /, ''), siteOrigin);
                ul.appendChild(li);
                i++;
            }
            out.appendChild(ul);
            continue;
        }
        if (line.trim() === '') {
            i++;
            continue;
        }
        const p = doc.createElement('p');
        let first = true;
        while (i < lines.length && lines[i].trim() !== '' && !lines[i].startsWith('```') && !lines[i].startsWith('>') && !(/^\s*[-*+] /).test(lines[i])) {
            if (!first) {
                p.appendChild(doc.createElement('br'));
            }
            const heading = (/^#{1,6} /).exec(lines[i]);
            if (heading) {
                const strong = doc.createElement('strong');
                inline(doc, strong, lines[i].slice(heading[0].length), siteOrigin);
                p.appendChild(strong);
            } else {
                inline(doc, p, lines[i], siteOrigin);
            }
            first = false;
            i++;
        }
        out.appendChild(p);
    }
    return out;
}

// Inline spans, longest-known first. Each match's inner text is rendered
// again (except code), its outer text stays text.
const inlinePattern = /(`[^`]+`)|(!?\[[^\]]*\]\([^)\s]+\))|(\*\*[^*]+\*\*)|(~~[^~]+~~)|(\*[^*\s][^*]*\*)|(\b_[^_\s][^_]*_\b)|(https?:\/\/[^\s<>()]+)/;

function inline(doc: Document, parent: Node, text: string, siteOrigin?: string) {
    let rest = text;
    while (rest.length > 0) {
        const m = inlinePattern.exec(rest);
        if (!m) {
            parent.appendChild(doc.createTextNode(rest));
            return;
        }
        if (m.index > 0) {
            parent.appendChild(doc.createTextNode(rest.slice(0, m.index)));
        }
        const tok = m[0];
        if (m[1]) {
            const c = doc.createElement('code');
            c.textContent = tok.slice(1, -1);
            parent.appendChild(c);
        } else if (m[2]) {
            const lm = (/^!?\[([^\]]*)\]\(([^)\s]+)\)$/).exec(tok);
            const label = lm ? lm[1] : tok;
            const href = lm ? safeHref(lm[2]) : null;
            if (href) {
                parent.appendChild(link(doc, href, label || href, siteOrigin));
            } else {
                parent.appendChild(doc.createTextNode(label));
            }
        } else if (m[3] || m[4] || m[5] || m[6]) {
            const strip = m[3] || m[4] ? 2 : 1;
            let tag = 'em';
            if (m[3]) {
                tag = 'strong';
            } else if (m[4]) {
                tag = 'del';
            }
            const el = doc.createElement(tag);
            inline(doc, el, tok.slice(strip, -strip), siteOrigin);
            parent.appendChild(el);
        } else {
            const href = safeHref(tok);
            parent.appendChild(href ? link(doc, href, tok, siteOrigin) : doc.createTextNode(tok));
        }
        rest = rest.slice(m.index + tok.length);
    }
}

function link(doc: Document, href: string, label: string, siteOrigin?: string): HTMLAnchorElement {
    const a = doc.createElement('a');
    a.href = href;
    a.textContent = label;
    a.rel = 'noopener noreferrer nofollow';
    a.target = '_blank';
    if (siteOrigin && new URL(href).origin !== siteOrigin) {
        a.className = 'external';
    }
    return a;
}
