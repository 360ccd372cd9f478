// Every style of the modal and the sidebar, in one place: inline styles, as a
// CSS import would make a second file. Mattermost's theme variables keep them
// readable in dark themes.
import type React from 'react';

export const theme = {
    bg: 'var(--center-channel-bg, #fff)',
    text: 'var(--center-channel-color, #3f4350)',
    muted: 'rgba(var(--center-channel-color-rgb, 63, 67, 80), 0.64)',
    border: 'rgba(var(--center-channel-color-rgb, 63, 67, 80), 0.16)',
    subtle: 'rgba(var(--center-channel-color-rgb, 63, 67, 80), 0.04)',
    button: 'var(--button-bg, #1c58d9)',
    buttonText: 'var(--button-color, #fff)',
    link: 'var(--link-color, #1c58d9)',
    error: 'var(--error-text, #d24b4e)',
};

type Styles = Record<string, React.CSSProperties>;

const button: React.CSSProperties = {
    padding: '8px 16px',
    borderRadius: 4,
    border: `1px solid ${theme.border}`,
    background: theme.bg,
    color: theme.text,
    fontWeight: 600,
    fontSize: 14,
    cursor: 'pointer',
    whiteSpace: 'nowrap',
};

const muted: React.CSSProperties = {color: theme.muted, fontSize: 12};
const messageBox: React.CSSProperties = {padding: '8px 12px', border: `1px solid ${theme.border}`, borderRadius: 4, background: theme.subtle};
const pre: React.CSSProperties = {margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-word', fontSize: 13};
const link: React.CSSProperties = {color: theme.link};

// What the modal and the sidebar both use.
export const shared = {
    button,
    primaryButton: {...button, border: 'none', background: theme.button, color: theme.buttonText},
    muted,
    error: {color: theme.error, margin: '12px 0'},
    link,
} satisfies Styles;

export const modal = {
    overlay: {
        position: 'fixed',
        inset: 0,

        // Above Mattermost's own modals (1050) and sidebars.
        zIndex: 1100,
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        background: 'rgba(0, 0, 0, 0.5)',
    },

    // Border-box whatever the host's CSS says, so the padding stays inside the
    // width and the dialog keeps its margin on a phone.
    dialog: {
        boxSizing: 'border-box',
        width: 'min(640px, calc(100vw - 32px))',
        maxHeight: 'calc(100vh - 48px)',
        overflowY: 'auto',
        padding: '20px 24px',
        background: theme.bg,
        color: theme.text,
        borderRadius: 8,
        boxShadow: '0 20px 32px rgba(0, 0, 0, 0.12)',
        fontSize: 14,
        outline: 'none',
    },

    // The heading and the Dismiss button.
    header: {display: 'flex', alignItems: 'flex-start', gap: 12},
    title: {flex: 1, margin: 0, fontSize: 18, fontWeight: 600},
    closeIcon: {...button, border: 'none', padding: '0 6px', fontSize: 20, lineHeight: 1},

    // A value the model chose inside the heading: code, marked as the model's.
    aiCode: {padding: '0 4px', borderRadius: 4, background: theme.subtle, border: `1px solid ${theme.border}`, fontSize: '0.9em', whiteSpace: 'pre-wrap', overflowWrap: 'anywhere'},

    // The sentence under the heading and the facts: where, the mark, the deadline.
    lede: {...muted, fontSize: 14, margin: '4px 0 0'},
    facts: {display: 'grid', gridTemplateColumns: 'max-content minmax(0, 1fr)', gap: '4px 16px', margin: '12px 0 0'},
    factName: {color: theme.muted},
    factValue: {margin: 0, overflowWrap: 'anywhere'},

    // A section (message, the post it replaces, notes, files) under its heading.
    section: {margin: '16px 0 0'},
    sectionHeading: {margin: '0 0 6px', fontSize: 12, fontWeight: 600, textTransform: 'uppercase', color: theme.muted},
    messageBox,
    pre,

    // The model's text sits in a box of its own with a caption saying who wrote
    // it, so nothing it writes can pass for the dialog's own words.
    aiBox: {margin: 0, border: `1px solid ${theme.border}`, borderRadius: 6, overflow: 'hidden'},
    aiCaption: {padding: '4px 12px', fontSize: 12, fontWeight: 600, color: theme.muted, background: theme.subtle, borderBottom: `1px solid ${theme.border}`},
    aiBody: {padding: '8px 12px', overflowWrap: 'anywhere'},

    notes: {margin: 0, paddingLeft: 18},

    fileList: {margin: 0, padding: 0, listStyle: 'none'},
    file: {display: 'flex', gap: 12, padding: '8px 0', borderTop: `1px solid ${theme.border}`},

    // The thumbnail keeps its own shape: the box fits the image, never wider.
    thumb: {display: 'block', maxWidth: 96, maxHeight: 96, width: 'auto', height: 'auto', borderRadius: 4, flex: 'none', alignSelf: 'flex-start', border: `1px solid ${theme.border}`},
    fileBody: {minWidth: 0, flex: 1},
    fileName: {overflowWrap: 'anywhere'},
    mismatch: {color: theme.error, fontWeight: 600},
    preview: {...pre, ...messageBox, marginTop: 6, maxHeight: 160, overflow: 'auto'},

    footer: {display: 'flex', flexWrap: 'wrap', justifyContent: 'flex-end', alignItems: 'center', gap: 8, marginTop: 20},
    pageLink: {...link, marginRight: 'auto'},
    closeButton: {...button, marginLeft: 'auto'},
} satisfies Styles;

// An image in the model's message, shown as words; a style attribute, as the
// words are written into HTML the host renders.
export const imagePlaceholderCss = 'font-style: italic; opacity: 0.72;';

export const sidebar = {
    container: {padding: '12px 16px', color: theme.text, fontSize: 14},
    toolbar: {display: 'flex', alignItems: 'center', justifyContent: 'space-between', marginBottom: 8},
    list: {margin: 0, padding: 0, listStyle: 'none'},
    item: {display: 'flex', alignItems: 'center', gap: 12, padding: '10px 0', borderTop: `1px solid ${theme.border}`},
    itemBody: {flex: 1, minWidth: 0},
    itemTitle: {wordBreak: 'break-word'},
    pendingState: {fontWeight: 600, fontSize: 12},
    smallButton: {...button, padding: '4px 12px', fontSize: 12},
} satisfies Styles;

// The "Connect an AI client" dialog: the modal's frame, and blocks of setup
// that wrap rather than scroll sideways on a phone.
export const connect = {
    code: {...pre, ...messageBox, fontFamily: 'monospace', wordBreak: 'normal', overflowWrap: 'anywhere', flex: 1, minWidth: 0},
    codeRow: {display: 'flex', alignItems: 'flex-start', gap: 8},
    copyButton: {...button, padding: '4px 10px', fontSize: 12, flex: 'none'},
    links: {display: 'flex', flexWrap: 'wrap', gap: 12, margin: '6px 0 0'},
    presets: {border: 'none', margin: '0 0 16px', padding: 0, minWidth: 0},
    preset: {display: 'flex', alignItems: 'flex-start', gap: 8, padding: '4px 0', cursor: 'pointer', overflowWrap: 'anywhere'},
    tokenBox: {margin: '12px 0 0', padding: '10px 12px', border: `2px solid ${theme.button}`, borderRadius: 6},
    clientList: {margin: 0, padding: 0, listStyle: 'none'},
    client: {display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 8, padding: '8px 0', borderTop: `1px solid ${theme.border}`},
    clientBody: {flex: '1 1 200px', minWidth: 0, overflowWrap: 'anywhere'},
    confirm: {flex: '1 1 100%', display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 8, padding: '8px 12px', background: theme.subtle, borderRadius: 4},
    notice: {margin: '12px 0 0'},
    blocked: {margin: '0 0 8px', padding: '8px 12px', border: `1px solid ${theme.error}`, borderRadius: 4, overflowWrap: 'anywhere'},
} satisfies Styles;
