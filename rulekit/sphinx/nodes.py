"""Docutils nodes of the extension: a collapsible block and a generated SVG figure."""
from __future__ import annotations

import hashlib
from pathlib import Path

from docutils import nodes


class rulekit_details(nodes.General, nodes.Element):  # noqa: N801 - docutils naming
    """A block the reader can open: HTML <details>; other builders show the content."""


class rulekit_svg(nodes.General, nodes.Element):  # noqa: N801
    """A generated SVG (attribute `svg`), written to the image folder by the HTML builder."""


def visit_details_html(self, node):
    self.body.append(f'<details class="rulekit-details">\n<summary>{self.encode(node["summary"])}</summary>\n')


def depart_details_html(self, node):
    self.body.append("</details>\n")


def visit_details_other(self, node):
    pass


def depart_details_other(self, node):
    pass


def visit_svg_html(self, node):
    svg = node["svg"]
    digest = hashlib.sha1(svg.encode("utf-8"), usedforsecurity=False).hexdigest()[:16]
    name = f"rulekit-{node.get('prefix', 'figure')}-{digest}.svg"
    target = Path(self.builder.outdir) / self.builder.imagedir / name
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(svg, encoding="utf-8")
    src = f"{self.builder.imgpath}/{name}"
    classes = " ".join(["rulekit-figure", *node.get("classes", [])])
    self.body.append(f'<figure class="{self.attval(classes)}">'
                     f'<img src="{self.attval(src)}" alt="{self.attval(node["alt"])}" />')
    if node.get("caption"):
        self.body.append(f"<figcaption>{self.encode(node['caption'])}</figcaption>")
    self.body.append("</figure>\n")
    raise nodes.SkipNode


def visit_svg_other(self, node):
    raise nodes.SkipNode


def add_nodes(app) -> None:
    other = (visit_details_other, depart_details_other)
    app.add_node(rulekit_details, html=(visit_details_html, depart_details_html), latex=other, text=other,
                 man=other, texinfo=other)
    skip = (visit_svg_other, None)
    app.add_node(rulekit_svg, html=(visit_svg_html, None), latex=skip, text=skip, man=skip, texinfo=skip)
