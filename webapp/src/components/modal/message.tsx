import React, {useMemo} from 'react';

import {AIText} from './ai_text';

import type {ConfirmationDetail} from '../../api';
import {imagePlaceholderCss, modal} from '../styles';

// The model's message (a post's, or the new one of an edit), exactly as it
// will read, headed and captioned in the server's words.
export function Message({detail}: {detail: ConfirmationDetail}) {
    if (detail.message === '' || !detail.message_caption) {
        return null;
    }
    return (
        <section style={modal.section}>
            <h3 style={modal.sectionHeading}>{detail.message_heading}</h3>
            <AIText caption={detail.message_caption}>
                <PostMessage text={detail.message}/>
            </AIText>
        </section>
    );
}

// The post a change is about: the message an edit replaces, the post a
// reaction is on, the post that is deleted or pinned.
export function Previous({detail}: {detail: ConfirmationDetail}) {
    if (!detail.previous || !detail.previous_title) {
        return null;
    }
    return (
        <section style={modal.section}>
            <h3 style={modal.sectionHeading}>{detail.previous_title}</h3>
            <div style={modal.messageBox}>
                <PostMessage text={detail.previous}/>
            </div>
        </section>
    );
}

// Rendered the way Mattermost renders posts when the host provides its renderer;
// otherwise the raw markdown, which is still exactly what will be posted.
export function PostMessage({text}: {text: string}) {
    const rendered = useMemo(() => {
        const postUtils = window.PostUtils;
        if (!postUtils) {
            return null;
        }
        try {
            return postUtils.messageHtmlToComponent(withoutImages(postUtils.formatText(text, {atMentions: true, markdown: true})));
        } catch {
            return null;
        }
    }, [text]);
    if (rendered == null) {
        return <pre style={modal.pre}>{text}</pre>;
    }
    return <div className='post-message__text'>{rendered}</div>;
}

// An image in the model's message would be fetched the moment the modal opens,
// before the person answers, telling its address whatever the model put in it.
// So every image is shown as words saying where it points, as the page shows
// them; the post itself shows the image once it is sent. Parsed in a document
// of its own, which loads nothing.
export function withoutImages(html: string): string {
    if (!(/<img/i).test(html)) {
        return html;
    }
    const doc = new DOMParser().parseFromString(html, 'text/html');
    doc.querySelectorAll('img').forEach((img) => {
        const words = doc.createElement('span');
        words.setAttribute('style', imagePlaceholderCss);
        const alt = img.getAttribute('alt');
        words.textContent = `[image${alt ? ` “${alt}”` : ''} from ${img.getAttribute('src') ?? 'nowhere'}]`;
        img.replaceWith(words);
    });
    return doc.body.innerHTML;
}
