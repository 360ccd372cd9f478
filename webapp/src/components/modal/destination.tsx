import React from 'react';

import {AIText} from './ai_text';

import type {ConfirmationDetail} from '../../api';
import {modal} from '../styles';

// What a pending write does and where, in the server's words: the lede, then
// the facts (or, for a post, edit or reaction, where it goes and how it is
// marked), and the time by which to answer.
export function Destination({detail}: {detail: ConfirmationDetail}) {
    const expires = formatTime(detail.expires_at, detail.time_zone);
    const facts = detail.facts ?? [];
    const where = detail.where || detail.destination;
    return (
        <>
            <p style={modal.lede}>{detail.modal_lede}</p>
            <dl style={modal.facts}>
                {facts.map((fact) => (
                    <Fact
                        key={fact.label}
                        label={fact.label}
                    >
                        {fact.ai ? <AIText caption='Written by the AI'>{fact.value}</AIText> : fact.value}
                    </Fact>
                ))}
                {facts.length === 0 && where && <Fact label='Where'>{where}</Fact>}
                {facts.length === 0 && detail.attribution && !detail.action && (
                    <Fact label='Marked'>{`“${detail.attribution}”, shown under the post`}</Fact>
                )}
                {expires && (
                    <Fact label='Answer by'>{`${expires}; after that ${detail.after_expiry ?? ''}.`}</Fact>
                )}
            </dl>
        </>
    );
}

function Fact({label, children}: {label: string; children: React.ReactNode}) {
    return (
        <>
            <dt style={modal.factName}>{label}</dt>
            <dd style={modal.factValue}>{children}</dd>
        </>
    );
}

// A time of day in the person's Mattermost time zone, named, or else in the
// browser's own.
export function formatTime(iso: string, timeZone?: string): string {
    const date = new Date(iso);
    if (isNaN(date.getTime())) {
        return '';
    }
    if (timeZone) {
        try {
            return `${date.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit', timeZone})} (${timeZone})`;
        } catch {
            // An unknown zone name: the browser's own time below.
        }
    }
    return date.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'});
}
