// Mattermost's system emoji by name, drawn as the characters they are; a
// name Mattermost does not know (a custom emoji) has no glyph and is shown
// as :name: text, never as an image (the view loads nothing).

import {emojiData} from './emoji_data';

let table: Map<string, string> | null = null;

// Skin tones, as Mattermost names them, and the modifier each adds.
const tones: Record<string, number> = {
    light: 0x1f3fb, medium_light: 0x1f3fc, medium: 0x1f3fd, medium_dark: 0x1f3fe, dark: 0x1f3ff,
};
const toneName = /^(.+)_(light|medium_light|medium|medium_dark|dark)_skin_tone$/;

function codes(hex: string): number[] | null {
    const out = hex.split('-').map((h) => parseInt(h, 16));
    return out.length > 0 && out.every((n) => Number.isInteger(n) && n > 0 && n <= 0x10ffff) ? out : null;
}

function lookup(name: string): number[] | null {
    if (!table) {
        table = new Map();
        for (const entry of emojiData.split(',')) {
            const at = entry.indexOf('=');
            if (at > 0) {
                table.set(entry.slice(0, at), entry.slice(at + 1));
            }
        }
    }
    const hex = table.get(name);
    return hex ? codes(hex) : null;
}

// glyph is the emoji a system emoji name stands for, or '' for any other.
export function glyph(name: string): string {
    let cps = lookup(name);
    const toned = cps ? null : toneName.exec(name);
    if (toned) {
        const base = lookup(toned[1]);
        if (base) {
            // The modifier follows the first character; a variation
            // selector it replaces goes.
            cps = [base[0], tones[toned[2]], ...base.slice(1).filter((c, i) => !(i === 0 && c === 0xfe0f))];
        }
    }
    return cps ? String.fromCodePoint(...cps) : '';
}
