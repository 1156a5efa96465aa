#!/bin/sh
# md2html.sh IN.md OUT.html - one Markdown document of the project as a
# standalone HTML page, for the installed docs (share/doc/etinspect/*.html).
#
# cmark-gfm renders GitHub-flavoured Markdown (tables, autolinks); this adds
# the page around it, GitHub's heading ids (so "#which-method-..." anchors
# work) and turns links to the other documents (docs/x.md, x.md, ../README.md)
# into links to their .html beside it: the pages are installed flat, and the
# schemas (../schema/x.fbs) are in share/etinspect/schema.
set -eu
in=$1
out=$2
title=$(sed -n 's/^# //p' "$in" | head -n 1)
[ -n "$title" ] || title=$(basename "$in" .md)
tmp="$out.tmp"
{
    printf '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
    printf '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
    printf '<title>%s</title>\n' "$(printf '%s' "$title" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')"
    printf '<style>body{max-width:60em;margin:2em auto;padding:0 1em;font-family:sans-serif;line-height:1.45}'
    printf 'pre,code{background:#f4f4f4}pre{padding:.6em;overflow-x:auto}'
    printf 'table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;vertical-align:top}</style>\n'
    printf '</head>\n<body>\n'
    cmark-gfm -e table -e autolink -e strikethrough --to html "$in" |
        awk '
            # GitHub heading ids: the text without tags or entities, lower
            # case, only letters, digits, "-", "_" and spaces, spaces as "-"
            /^<h[1-6]>/ {
                lvl = substr($0, 3, 1)
                text = $0
                sub(/^<h[1-6]>/, "", text); sub(/<\/h[1-6]>$/, "", text)
                id = text
                gsub(/<[^>]*>/, "", id); gsub(/&[a-z]+;|&#[0-9]+;/, "", id)
                id = tolower(id); gsub(/[^a-z0-9 _-]/, "", id); gsub(/ /, "-", id)
                if (seen[id]++) id = id "-" (seen[id] - 1)
                printf "<h%s id=\"%s\">%s</h%s>\n", lvl, id, text, lvl
                next
            }
            { print }' |
        sed -e 's#href="\(\.\./\)\{0,1\}README\.md#href="README.html#g' \
            -e 's#href="docs/\([A-Za-z0-9_-]*\)\.md#href="\1.html#g' \
            -e 's#href="\([A-Za-z0-9_-]*\)\.md#href="\1.html#g' \
            -e 's#href="\.\./schema/#href="../../etinspect/schema/#g'
    printf '</body>\n</html>\n'
} >"$tmp"
mv "$tmp" "$out"
