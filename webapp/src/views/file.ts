// The file view (ui://mattermost/file): an MCP App the client shows for
// read_file. It renders the tool's result the host hands it (structured
// content and the content blocks: the image read_file returned, the text
// window) and nothing else: no fetch, no external load (the CSP forbids both).

import {App} from '@modelcontextprotocol/ext-apps/app-with-deps';

import {renderFile, type Content} from './files';
import {css} from './style';

type HostContext = {theme?: string};

const style = document.createElement('style');
style.textContent = css;
document.head.appendChild(style);

const root = document.getElementById('root') as HTMLElement;

function applyContext(ctx: HostContext | undefined) {
    if (ctx?.theme === 'dark' || ctx?.theme === 'light') {
        document.documentElement.dataset.theme = ctx.theme;
    }
}

const app = new App({name: 'Mattermost file', version: '1.0.0'});
app.ontoolresult = (params) => {
    renderFile(document, root, params.structuredContent ?? null, (params.content ?? []) as Content[]);
};
app.onhostcontextchanged = (ctx) => applyContext(ctx as HostContext);
root.textContent = 'Loading the file…';
app.connect().then(() => {
    applyContext(app.getHostContext() as HostContext);
}).catch(() => {
    root.textContent = 'This view needs a client that shows MCP Apps.';
});
