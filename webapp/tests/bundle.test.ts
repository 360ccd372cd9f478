// @vitest-environment node
//
// Builds the real bundle with vite.config.ts (into a temporary folder, so it does not
// depend on or touch dist/) and checks that React stays the host's: the file holds no
// React source, takes the global React, and works when loaded the way Mattermost loads it.
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join, resolve} from 'node:path';
import vm from 'node:vm';

import React from 'react';
import {renderToStaticMarkup} from 'react-dom/server';
import {build, type InlineConfig} from 'vite';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';

import configFn from '../vite.config';

const root = resolve(__dirname, '..');
const tmp = mkdtempSync(join(tmpdir(), 'mcp-server-webapp-'));

// Strings found in React's and ReactDOM's own builds (development and production,
// minified or not), never in this plugin's code.
const REACT_SOURCE_MARKERS = [
    '__SECRET_INTERNALS_DO_NOT_USE_OR_YOU_WILL_BE_FIRED',
    'react.production',
    'react.development',
    'react.element',
    'react.fragment',
];

function reactMarkersIn(code: string): string[] {
    return REACT_SOURCE_MARKERS.filter((marker) => code.includes(marker));
}

async function buildInto(outDir: string, overrides: InlineConfig = {}): Promise<string[]> {
    await build({root, logLevel: 'silent', ...overrides, build: {...overrides.build, outDir, emptyOutDir: true}});
    return readdirSync(outDir);
}

let files: string[];
let code: string;

beforeAll(async () => {
    files = await buildInto(join(tmp, 'real'), {configFile: join(root, 'vite.config.ts')});
    code = readFileSync(join(tmp, 'real', 'main.js'), 'utf8');
}, 60_000);

afterAll(() => rmSync(tmp, {recursive: true, force: true}));

describe('the built bundle', () => {
    it('is a single main.js with no CSS or split chunks', () => {
        expect(files).toEqual(['main.js']);
    });

    it('contains none of React\'s own source', () => {
        expect(reactMarkersIn(code)).toEqual([]);
        expect(code).not.toMatch(/\brequire\(/);
        expect(code).not.toMatch(/^\s*import\b/m);

        // The confirmation modal and the Connect dialog, minified, are about
        // 30 KB; React inside would be well over 100 KB.
        expect(code.length).toBeLessThan(40_000);

        // No JSX debug info: that would carry this machine's paths.
        expect(code).not.toContain(root);
        expect(code).not.toContain('__source');
    });

    it('is an IIFE that is handed the global React', () => {
        expect(code.startsWith('(function(')).toBe(true);
        expect(code.trimEnd()).toMatch(/\}\)\(React\);?$/);
    });

    it('would be caught by this check if React were bundled', async () => {
        // Same config without the externals: React gets bundled, and the markers
        // above must then be found, or the check above proves nothing.
        const base = configFn({command: 'build', mode: 'production'});
        const bundled = await buildInto(join(tmp, 'control'), {
            ...base,
            configFile: false,
            build: {...base.build, rolldownOptions: {}},
        });
        const controlCode = readFileSync(join(tmp, 'control', bundled[0]), 'utf8');
        expect(reactMarkersIn(controlCode).length).toBeGreaterThan(0);
    }, 60_000);

    it('registers mcp-server through window.registerPlugin using the host\'s React', () => {
        type Registered = {initialize(registry: unknown, store: unknown): void; uninitialize(): void};
        const registered: Array<{id: string; plugin: Registered}> = [];
        const fetched: string[] = [];
        const sandbox: Record<string, unknown> = {
            React,
            registerPlugin: (id: string, plugin: Registered) => registered.push({id, plugin}),

            // Never answers, so the modal stays in its loading state.
            fetch: (url: string) => {
                fetched.push(url);
                return new Promise(() => undefined);
            },
        };
        sandbox.window = sandbox;
        vm.runInNewContext(code, sandbox);

        expect(registered.map((r) => r.id)).toEqual(['mcp-server']);
        const plugin = registered[0].plugin;
        expect(typeof plugin.initialize).toBe('function');
        expect(typeof plugin.uninitialize).toBe('function');

        type Handler = (msg: unknown) => void;
        const handlers = new Map<string, Handler>();
        const roots: React.ComponentType[] = [];
        const sidebars: React.ComponentType[] = [];
        const dispatched: unknown[] = [];
        const headerActions: Array<() => void> = [];
        plugin.initialize({
            registerWebSocketEventHandler: (event: string, h: Handler) => handlers.set(event, h),
            registerRootComponent: (c: React.ComponentType) => roots.push(c),
            registerRightHandSidebarComponent: (c: React.ComponentType) => {
                sidebars.push(c);
                return {id: 'rhs', showRHSPlugin: 'show', hideRHSPlugin: 'hide', toggleRHSPlugin: 'toggle'};
            },
            registerChannelHeaderButtonAction: (_icon: unknown, action: () => void) => {
                headerActions.push(action);
            },
        }, {dispatch: (a: unknown) => dispatched.push(a), getState: () => ({})});

        expect([...handlers.keys()]).toEqual([
            'custom_mcp-server_pending_confirmation',
            'custom_mcp-server_confirmation_answered',
        ]);

        // The confirmation modal and the Connect dialog.
        expect(roots).toHaveLength(2);
        expect(sidebars).toHaveLength(1);
        expect(headerActions).toHaveLength(2);
        headerActions[0]();
        expect(dispatched).toEqual(['toggle']);

        const Root = roots[0];
        expect(renderToStaticMarkup(React.createElement(Root))).toBe('');

        handlers.get('custom_mcp-server_pending_confirmation')!({
            event: 'custom_mcp-server_pending_confirmation',
            data: {confirmations: [{id: 'z9', title: 'Upload report.pdf'}]},
        });
        const html = renderToStaticMarkup(React.createElement(Root));
        expect(html).toContain('role="dialog"');
        expect(html).toContain('Upload report.pdf');
        expect(fetched).toEqual(['/plugins/mcp-server/api/v1/confirmations/z9']);
    });

    it('fails to load without a global React, so it does not carry its own', () => {
        const sandbox: Record<string, unknown> = {registerPlugin: () => undefined};
        sandbox.window = sandbox;
        expect(() => vm.runInNewContext(code, sandbox)).toThrow(/React is not defined/);
    });
});
