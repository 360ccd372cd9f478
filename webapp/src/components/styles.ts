// Inline styles shared by the modal and the sidebar (a CSS import would make a
// second file). Mattermost's theme variables keep them readable in dark themes.
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

export const buttonStyle: React.CSSProperties = {
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

export const primaryButtonStyle: React.CSSProperties = {
    ...buttonStyle,
    border: 'none',
    background: theme.button,
    color: theme.buttonText,
};

export const mutedStyle: React.CSSProperties = {color: theme.muted, fontSize: 12};

export const errorStyle: React.CSSProperties = {color: theme.error, margin: '12px 0'};

export const STATE_LABELS: Record<string, string> = {
    pending: 'Waiting for you',
    executing: 'Being posted',
    posted: 'Posted',
    declined: 'Declined',
    failed: 'Failed',
    withdrawn: 'Withdrawn',
};
