import React from 'react';

import {modal} from '../styles';

// The model's words in a box of their own, under a caption saying who wrote them.
export function AIText({caption, children}: {caption: string; children: React.ReactNode}) {
    return (
        <figure style={modal.aiBox}>
            <figcaption style={modal.aiCaption}>{caption}</figcaption>
            <div style={modal.aiBody}>{children}</div>
        </figure>
    );
}
