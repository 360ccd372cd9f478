import React from 'react';

import {sitePath, type ConfirmationFile} from '../../api';
import {modal, shared} from '../styles';

// Every file the write attaches: name, size, type, a type mismatch, where it
// comes from, its checksum, a thumbnail and the first lines of a text.
export function Files({files}: {files: ConfirmationFile[]}) {
    if (files.length === 0) {
        return null;
    }
    return (
        <section style={modal.section}>
            <h3 style={modal.sectionHeading}>{`Files (${files.length})`}</h3>
            <ul style={modal.fileList}>
                {files.map((file) => (
                    <FileItem
                        key={file.index}
                        file={file}
                    />
                ))}
            </ul>
        </section>
    );
}

function FileItem({file}: {file: ConfirmationFile}) {
    const origin = originOf(file);
    return (
        <li style={modal.file}>
            {file.thumbnail_url && (
                <img
                    src={sitePath(file.thumbnail_url)}
                    alt={`Preview of ${file.name}`}
                    style={modal.thumb}
                />
            )}
            <div style={modal.fileBody}>
                <strong style={modal.fileName}>{file.name}</strong>
                <div>{[file.size_text, file.type].filter(Boolean).join(' · ')}</div>
                {file.mismatch && <div style={modal.mismatch}>{file.mismatch}</div>}
                {origin && <div style={shared.muted}>{origin}</div>}
                {file.sha256 && <div style={shared.muted}>{`SHA-256 ${file.sha256}…`}</div>}
                {file.preview && <pre style={modal.preview}>{file.preview}</pre>}
            </div>
        </li>
    );
}

// Where a file comes from, as a sentence; an older server sends only the
// fragment ("written by the model").
function originOf(file: ConfirmationFile): React.ReactNode {
    if (!file.origin_text) {
        return file.origin ? `From ${file.origin}` : '';
    }
    if (!file.origin_url) {
        return `${file.origin_text}.`;
    }
    return (
        <>
            {`${file.origin_text}, from `}
            <a
                href={file.origin_url}
                target='_blank'
                rel='noopener noreferrer'
                style={shared.link}
            >
                {'this post'}
            </a>
            {'.'}
        </>
    );
}
