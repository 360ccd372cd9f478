import React from 'react';

import type {HeadingSpan} from '../../api';
import {modal} from '../styles';

// The dialog's heading and its Dismiss button. titleId labels the dialog.
export function Heading({titleId, line, text, onDismiss}: {titleId: string; line: HeadingSpan[] | null; text: string; onDismiss: () => void}) {
    return (
        <div style={modal.header}>
            <h2
                id={titleId}
                style={modal.title}
            >
                {line ? <Line spans={line}/> : text}
            </h2>
            <button
                type='button'
                aria-label='Dismiss'
                style={modal.closeIcon}
                onClick={onDismiss}
            >
                {'×'}
            </button>
        </div>
    );
}

// A line in spans: the model's values as code marked as written by the AI, the
// rest as text; neither is ever markup.
function Line({spans}: {spans: HeadingSpan[]}) {
    return (
        <>
            {spans.map((span, i) => (span.ai ? (
                <code
                    // eslint-disable-next-line react/no-array-index-key -- the spans are one fixed line from the server, never reordered
                    key={i}
                    style={modal.aiCode}
                    title='Written by the AI'
                >
                    {span.text}
                </code>
            ) : (
                // eslint-disable-next-line react/no-array-index-key -- as above
                <React.Fragment key={i}>{span.text}</React.Fragment>
            )))}
        </>
    );
}
