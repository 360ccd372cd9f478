import React, {useState} from 'react';

import {connect as styles} from '../styles';

// A block of text to paste elsewhere, with a Copy button beside it. Where the
// clipboard is not available (an insecure origin) the text is selected for the
// person to copy.
export function CopyBlock({label, text}: {label: string; text: string}) {
    const [copied, setCopied] = useState(false);
    const ref = React.useRef<HTMLPreElement>(null);
    const copy = async () => {
        try {
            await navigator.clipboard.writeText(text);
            setCopied(true);
        } catch {
            const range = document.createRange();
            if (ref.current) {
                range.selectNodeContents(ref.current);
                window.getSelection()?.removeAllRanges();
                window.getSelection()?.addRange(range);
            }
        }
    };
    return (
        <div style={styles.codeRow}>
            <pre
                ref={ref}
                style={styles.code}
                aria-label={label}
            >
                {text}
            </pre>
            <button
                type='button'
                style={styles.copyButton}
                aria-label={`Copy ${label}`}
                onClick={copy}
            >
                {copied ? 'Copied' : 'Copy'}
            </button>
        </div>
    );
}
