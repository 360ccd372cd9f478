// Renders messages the way Mattermost's apps render a post, for the tests
// that check what the plugin's own posts (the bot's direct message, the
// /mcp answers) show. It reads a JSON list of markdown messages on stdin and
// prints, for each, what two renderers make of it:
//
//   [{"web": {...}, "mobile": {...}}, ...]
//
// web is the web and desktop app: Mattermost's fork of marked replaces
// every U+2424 (and \r, \r\n, tabs and no-break spaces) before it parses
// (its Lexer.prototype.lex); the fork is not on the npm registry, so its
// lexer rule is applied here and the text rendered by marked with GFM, which
// links bare addresses and www. as the fork does. mobile is the mobile app:
// @mattermost/commonmark, its own parser, with its own autolinks, mentions,
// channel links, hashtags and emoji.
//
// Each side is {"html", "links", "loads", "raw", "marks"}: the HTML, the
// href of every link, every address the rendering would load (src and the
// like), raw HTML passed through, and (mobile) the mentions, channel links,
// hashtags and emoji the app would render, as "type:value".
import { readFileSync } from 'node:fs';
import { marked } from 'marked';
import { Parser, HtmlRenderer } from '@mattermost/commonmark';

const messages = JSON.parse(readFileSync(0, 'utf8'));

// webLexerRule is what mattermost/marked's lexer does to the text first.
function webLexerRule(src) {
    return src
        .replace(/\r\n|\r/g, '\n')
        .replace(/\t/g, '    ')
        .replace(/\u00a0/g, ' ')
        .replace(/\u2424/g, '\n');
}

const entities = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", '#34': '"' };

function decode(v) {
    return v.replace(/&(#?\w+);/g, (m, e) => entities[e] ?? m);
}

// attributes reads the attributes of every tag in html: links are hrefs,
// loads every attribute a browser fetches.
function fromHTML(html) {
    const links = [];
    const loads = [];
    for (const tag of html.matchAll(/<([a-zA-Z][\w-]*)\b([^>]*)>/g)) {
        const name = tag[1].toLowerCase();
        for (const a of tag[2].matchAll(/([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
            const attr = a[1].toLowerCase();
            const value = decode(a[2] ?? a[3] ?? a[4] ?? '');
            if (attr === 'href' && name === 'a') {
                links.push(value);
            } else if (['src', 'srcset', 'poster', 'data', 'background', 'href', 'action', 'formaction'].includes(attr)) {
                loads.push(name + ' ' + value);
            }
        }
        if (name === 'img' && !/\bsrc\s*=/.test(tag[2])) {
            loads.push('img');
        }
    }
    return { links, loads };
}

function web(md) {
    const tokens = marked.lexer(webLexerRule(md), { gfm: true, breaks: true });
    const raw = [];
    marked.walkTokens(tokens, (t) => {
        if (t.type === 'html') {
            raw.push(t.raw);
        }
    });
    const html = marked.parser(tokens, { gfm: true, breaks: true });
    return { html, ...fromHTML(html), raw, marks: [] };
}

const parser = new Parser();
const renderer = new HtmlRenderer();

function mobile(md) {
    const doc = parser.parse(md);
    const links = [];
    const loads = [];
    const raw = [];
    const marks = [];
    const walker = doc.walker();
    for (let e = walker.next(); e; e = walker.next()) {
        if (!e.entering) {
            continue;
        }
        const n = e.node;
        switch (n.type) {
        case 'link':
            links.push(n.destination);
            break;
        case 'image':
            loads.push('img ' + n.destination);
            break;
        case 'html_inline':
        case 'html_block':
            raw.push(n.literal);
            break;
        case 'at_mention':
            marks.push('at_mention:' + n.mentionName);
            break;
        case 'channel_link':
            marks.push('channel_link:' + n.channelName);
            break;
        case 'hashtag':
            marks.push('hashtag:' + n.hashtag);
            break;
        case 'emoji':
            marks.push('emoji:' + n.emojiName);
            break;
        }
    }
    return { html: renderer.render(doc), links, loads, raw, marks };
}

process.stdout.write(JSON.stringify(messages.map((md) => ({ web: web(md), mobile: mobile(md) }))));
