import React, {useState, useSyncExternalStore} from 'react';

import {Clients} from './connect/clients';
import {CopyBlock} from './connect/copy';
import {Hosts} from './connect/hosts';
import {useDialogFocus} from './dialog_focus';
import {connect as styles, modal, shared} from './styles';

import type {Preset, Setup} from '../connect_api';
import type {ConnectState, ConnectStore} from '../connect_store';
import {PLUGIN_ID} from '../manifest';

export const CONNECT_TITLE = 'Connect an AI client';

export function ConnectDialog({store}: {store: ConnectStore}) {
    const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
    if (!state.open) {
        return null;
    }
    return (
        <Dialog
            state={state}
            store={store}
        />
    );
}

// The dialog: the URL, how this server signs clients in (and a token when it
// takes one), each client's setup, and the person's connected clients.
function Dialog({state, store}: {state: ConnectState; store: ConnectStore}) {
    const ref = useDialogFocus<HTMLDivElement>(store.close);
    const titleId = `${PLUGIN_ID}-connect-title`;
    const o = state.overview;
    const setup = state.token?.setup ?? o?.setup;
    const presets = state.token?.presets ?? o?.presets ?? [];
    return (
        <div style={modal.overlay}>
            <div
                ref={ref}
                role='dialog'
                aria-modal='true'
                aria-labelledby={titleId}
                tabIndex={-1}
                style={modal.dialog}
                data-dialog='connect'
            >
                <div style={modal.header}>
                    <h2
                        id={titleId}
                        style={modal.title}
                    >
                        {CONNECT_TITLE}
                    </h2>
                    <button
                        type='button'
                        aria-label='Dismiss'
                        style={modal.closeIcon}
                        onClick={store.close}
                    >
                        {'×'}
                    </button>
                </div>
                {state.loading && <p>{'Loading…'}</p>}
                {o && (
                    <>
                        <p style={modal.lede}>{'Use Mattermost from an AI client (ChatGPT, Claude, Claude Code, Cursor, VS Code…). It sees what you can see, and asks you before it posts anything as you.'}</p>
                        <section style={modal.section}>
                            <h3 style={modal.sectionHeading}>{'MCP URL'}</h3>
                            <CopyBlock
                                label='MCP URL'
                                text={o.url}
                            />
                        </section>
                        <SignIn
                            state={state}
                            store={store}
                        />
                        {setup && (
                            <Setups
                                setup={setup}
                                presets={presets}
                            />
                        )}
                        <Hosts hosts={o.hosts}/>
                        <Clients
                            state={state}
                            store={store}
                        />
                    </>
                )}
                {state.notice && (
                    <p
                        role='status'
                        style={styles.notice}
                    >
                        {state.notice}
                    </p>
                )}
                {state.error && (
                    <p
                        role='alert'
                        style={shared.error}
                    >
                        {state.error}
                    </p>
                )}
                <div style={modal.footer}>
                    <button
                        type='button'
                        style={modal.closeButton}
                        onClick={store.close}
                    >
                        {'Close'}
                    </button>
                </div>
            </div>
        </div>
    );
}

// How this server signs clients in; without OAuth, the token to make.
function SignIn({state, store}: {state: ConnectState; store: ConnectStore}) {
    const o = state.overview;
    if (!o) {
        return null;
    }
    return (
        <section style={modal.section}>
            <h3 style={modal.sectionHeading}>{'Signing in'}</h3>
            <p style={{margin: 0}}>{o.oauth_text}</p>
            {!o.oauth && o.oauth_reason && <p style={{...shared.muted, margin: '4px 0 0'}}>{`For your system admin: ${o.oauth_reason}.`}</p>}
            {!o.oauth && !state.token && (o.can_create_token ? (
                <p style={{margin: '8px 0 0'}}>
                    <button
                        type='button'
                        style={shared.primaryButton}
                        disabled={state.busy !== null}
                        onClick={store.makeToken}
                    >
                        {state.busy === 'token' ? 'Creating…' : 'Create a token for MCP'}
                    </button>
                </p>
            ) : (
                <p style={{...shared.muted, margin: '8px 0 0'}}>{o.token_note}</p>
            ))}
            {state.token && (
                <div
                    style={styles.tokenBox}
                    data-token='made'
                >
                    <strong>{'Your new personal access token'}</strong>
                    <p style={{margin: '4px 0 8px'}}>
                        {'It signs AI clients in to Mattermost as you. It is shown only now and is already filled into the setup below: copy what you need before closing. It is listed in Profile > Security > Personal Access Tokens as "' + state.token.description + '"; Disconnect below revokes it.'}
                    </p>
                    <CopyBlock
                        label='personal access token'
                        text={state.token.token}
                    />
                </div>
            )}
        </section>
    );
}

function InstallLink({href, label}: {href?: string; label: string}) {
    if (!href) {
        return null;
    }
    return (
        <a
            href={href}
            style={shared.link}
        >
            {label}
        </a>
    );
}

// bytes says a size as the person reads it: 52,944 bytes.
export function bytes(n: number): string {
    return `${n.toLocaleString('en-US')} bytes`;
}

// What the client loads: every client's setup and install link below follow
// the preset chosen here, each said with the size of the tools/list it loads
// (what the client puts in the model's context before the first question).
function Presets({presets, chosen, choose}: {presets: Preset[]; chosen: string; choose: (id: string) => void}) {
    return (
        <fieldset
            style={styles.presets}
            aria-label='What the client loads'
        >
            <legend style={{...modal.sectionHeading, padding: 0}}>{'What the client loads'}</legend>
            {presets.map((p) => (
                <label
                    key={p.id}
                    style={styles.preset}
                    data-preset={p.id}
                >
                    <input
                        type='radio'
                        name='mcp-preset'
                        value={p.id}
                        checked={chosen === p.id}
                        onChange={() => choose(p.id)}
                    />
                    <span>
                        <strong>{p.name}</strong>
                        <span data-preset-size={p.bytes}>{` · ${bytes(p.bytes)} of tools`}</span>
                        <span style={{...shared.muted, display: 'block'}}>{p.text}</span>
                    </span>
                </label>
            ))}
        </fieldset>
    );
}

// Ready-to-paste setup for each client, with their install links, for the
// preset chosen.
function Setups({setup, presets}: {setup: Setup; presets: Preset[]}) {
    const [chosen, choose] = useState('everything');
    const shown = presets.find((p) => p.id === chosen)?.setup ?? setup;
    return (
        <section style={modal.section}>
            {presets.length > 0 && (
                <Presets
                    presets={presets}
                    chosen={chosen}
                    choose={choose}
                />
            )}
            <h3 style={modal.sectionHeading}>{'Claude Code'}</h3>
            <p style={{...shared.muted, margin: '0 0 4px'}}>{'Run in a terminal:'}</p>
            <CopyBlock
                label='Claude Code command'
                text={shown.claude_code}
            />
            <h3 style={{...modal.sectionHeading, marginTop: 16}}>{'Cursor'}</h3>
            <p style={{...shared.muted, margin: '0 0 4px'}}>{'In ~/.cursor/mcp.json:'}</p>
            <CopyBlock
                label='Cursor mcp.json'
                text={shown.cursor}
            />
            <div style={styles.links}>
                <InstallLink
                    href={shown.cursor_link}
                    label='Install in Cursor'
                />
            </div>
            <h3 style={{...modal.sectionHeading, marginTop: 16}}>{'VS Code'}</h3>
            <p style={{...shared.muted, margin: '0 0 4px'}}>{'In .vscode/mcp.json:'}</p>
            <CopyBlock
                label='VS Code mcp.json'
                text={shown.vscode}
            />
            <div style={styles.links}>
                <InstallLink
                    href={shown.vscode_link}
                    label='Install in VS Code'
                />
            </div>
        </section>
    );
}
