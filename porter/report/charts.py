"""Inline SVG charts: no scripts, no network, readable without colour."""

from __future__ import annotations

from html import escape

LEGEND_CHAR_WIDTH = 7  # px: the widest a 12 px sans-serif character averages, legend spacing errs wide
FIX_COLOURS = {"auto": "#2e7d32", "suggested": "#f9a825", "manual": "#c62828"}


def stacked_bars(
    rows: list[tuple[str, dict[str, int]]], series=("auto", "suggested", "manual"), width: int = 640
) -> str:
    """Horizontal stacked bars, one row per label, a legend on top."""
    if not rows:
        return ""
    bar_height, gap, label_width = 18, 6, 150
    top = 26
    total_max = max(sum(values.values()) for _, values in rows) or 1
    scale = (width - label_width - 60) / total_max
    height = top + len(rows) * (bar_height + gap)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
    ]
    x = label_width
    for name in series:
        parts.append(f'<rect x="{x}" y="4" width="12" height="12" fill="{FIX_COLOURS.get(name, "#555")}"/>')
        parts.append(f'<text x="{x + 16}" y="14" font-size="12">{escape(name)}</text>')
        x += 100
    for index, (label, values) in enumerate(rows):
        y = top + index * (bar_height + gap)
        parts.append(
            f'<text x="{label_width - 6}" y="{y + 13}" font-size="12" text-anchor="end">{escape(label)}</text>'
        )
        x = label_width
        for name in series:
            count = values.get(name, 0)
            if count:
                w = max(1.0, count * scale)
                parts.append(
                    f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar_height}" fill="{FIX_COLOURS.get(name, "#555")}"><title>{escape(label)}: {count} {escape(name)}</title></rect>'
                )
                x += w
        parts.append(f'<text x="{x + 4:.1f}" y="{y + 13}" font-size="12">{sum(values.values())}</text>')
    parts.append("</svg>")
    return "".join(parts)


def elide_middle(text: str, limit: int) -> str:
    """`very_long_kernel_name_of_a_template` -> `very_long_ker…a_template`: both ends say the most."""
    if len(text) <= limit:
        return text
    keep = limit - 1
    return text[: (keep + 1) // 2] + "…" + text[len(text) - keep // 2 :]


def paired_bars(
    rows: list[tuple[str, float | None, float | None]], left: str, right: str, unit: str = "", width: int = 640
) -> str:
    """Two bars per row (e.g. NVIDIA against AMD occupancy); a missing value says why in words."""
    if not rows:
        return ""
    bar_height, label_width = 12, 180
    top = 26
    values = [v for _, a, b in rows for v in (a, b) if v is not None]
    scale = (width - label_width - 70) / (max(values) if values else 1 or 1)
    height = top + len(rows) * (2 * bar_height + 10)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
    ]
    x = label_width
    for name, colour in ((left, "#1565c0"), (right, "#c62828")):
        # each entry as wide as its text (at most 7 px a character at 12 px), so none overlaps the next
        parts.append(f'<rect class="legend-key" x="{x}" y="4" width="12" height="12" fill="{colour}"/>')
        parts.append(f'<text class="legend-text" x="{x + 16}" y="14" font-size="12">{escape(name)}</text>')
        x += 16 + LEGEND_CHAR_WIDTH * len(name) + 20
    for index, (label, a, b) in enumerate(rows):
        y = top + index * (2 * bar_height + 10)
        parts.append(
            f'<text x="{label_width - 6}" y="{y + bar_height + 4}" font-size="12" text-anchor="end">'
            f"<title>{escape(label)}</title>{escape(elide_middle(label, 26))}</text>"
        )
        for offset, (value, colour) in enumerate(((a, "#1565c0"), (b, "#c62828"))):
            yy = y + offset * bar_height
            if value is None:
                parts.append(f'<text x="{label_width}" y="{yy + 10}" font-size="10">not built for this target</text>')
                continue
            w = max(1.0, value * scale)
            parts.append(
                f'<rect x="{label_width}" y="{yy}" width="{w:.1f}" height="{bar_height - 1}" fill="{colour}"/>'
            )
            parts.append(
                f'<text x="{label_width + w + 4:.1f}" y="{yy + 10}" font-size="10">{value:g}{escape(unit)}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)
