r"""The low-rank part of an observable as LaTeX: the Woodbury form :math:`g^\top \mathsf C (I + \mathsf G \mathsf C)^{-1} g`.

A :class:`~.components.WoodburyForm` is printed block by block (:func:`woodbury_lines`: the
vectors of each pencil block, the nonzero blocks of :math:`\mathsf G` and :math:`\mathsf C`), or,
where it has the pattern of the attention's signal and weights (:func:`woodbury_structure`,
checked entry by entry), by that pattern: the Gram matrix :math:`\Gamma` of the vectors once,
:math:`\mathsf G` in one line, the blocks of :math:`\mathsf C` (:func:`structured_woodbury_lines`).
:func:`woodbury_glossary` says what the form's vectors and matrices are, for the "where" block.
"""
from __future__ import annotations

import sympy as sp

from . import symbols as S
from .components import WoodburyForm
from .latex_printer import PER_LINE, Line, Page, label_block, label_vector, pencil_blocks, to_latex

__all__ = ["woodbury_lines", "woodbury_glossary", "woodbury_structure", "structured_woodbury_lines"]

#: Vectors per line in the list of a pencil block's vectors.
_VECTORS_PER_LINE = 8


def woodbury_lines(name: str, form: WoodburyForm, page: Page) -> list[Line]:
    """The form with its matrices printed block by block (pencil blocks of the vectors), zero blocks left out."""
    tex = page.tex
    if not form.size:
        return [(name + " &= " + tex(form.offset), True)]
    lines: list[Line] = [(name + " &= " + tex(form.offset) + r" - g^\top \mathsf{C}\,(I + \mathsf{G}\mathsf{C})^{-1} g",
                          True)]
    groups = pencil_blocks(form.labels) if form.labels else {"": list(range(form.size))}
    if len(groups) == 1:
        return lines + [(r"\mathsf{G} &= " + tex(form.gram), True), (r"\mathsf{C} &= " + tex(form.core), True),
                        (r"g &= " + tex(form.source), True)]
    blocks = list(groups)
    lines.append((r"& \text{vectors } (" + ", ".join(f"u^{{({b})}}" for b in blocks) + r") \text{ in the pencil blocks } "
                  + ", ".join(blocks) + ":", False))
    for b in blocks:
        names = [page.vector(label_vector(form.labels[i])) for i in groups[b]]
        chunks = [", ".join(names[i:i + _VECTORS_PER_LINE]) for i in range(0, len(names), _VECTORS_PER_LINE)]
        for k, chunk in enumerate(chunks):
            head = f"& u^{{({b})}} = (" if k == 0 else r"& \qquad "
            tail = ")" if k == len(chunks) - 1 else ","
            lines.append((head + chunk + tail, False))
    for symbol, matrix in ((r"\mathsf{G}", form.gram), (r"\mathsf{C}", form.core)):
        layout, parts = [], []
        for a in blocks:
            row = []
            for b in blocks:
                block = matrix.extract(groups[a], groups[b])
                if block.is_zero_matrix:
                    row.append("0")
                else:
                    row.append(f"{symbol}_{{{a}{b}}}")
                    parts.append((f"{symbol}_{{{a}{b}}} &= " + tex(block), True))
            layout.append(" & ".join(row))
        lines.append((symbol + r" &= \begin{pmatrix}" + r" \\ ".join(layout) + r"\end{pmatrix}", True))
        lines.extend(parts)
    source = [", ".join(tex(e) for e in form.source.extract(groups[b], [0])) for b in blocks]
    lines.append((r"g &= \left(" + r" \,\middle|\, ".join(source) + r"\right)^\top", True))
    return lines


def woodbury_glossary(page: Page, paper: bool = False) -> list[str]:
    r"""The "where" entries of the system's first low-rank form: what its vectors are (in a ``paper``, without
    :math:`y`, which the model states) and how :math:`\mathsf G`, :math:`g`, :math:`\mathsf C` come from the pencil."""
    forms = [v for v in page.system.observables.values() if isinstance(v, WoodburyForm) and v.size]
    if not forms:
        return []
    form = forms[0]
    meanings = [page.vector(name) + " " + relation for name, relation in form.meanings
                if not (paper and name == "y")]                            # the model states y
    lines = [r",\ ".join(meanings[i:i + PER_LINE]) for i in range(0, len(meanings), PER_LINE)]
    blocks = list(pencil_blocks(form.labels)) if form.labels else [""]
    vectors = r"\mathcal{U} = (" + ", ".join(f"u^{{({b})}}" for b in blocks) + ")" if blocks != [""] else r"\mathcal{U}"
    source = ""
    if form.source_label:
        source = r",\ e = " + page.vector(label_vector(form.source_label)) + (
            r" \text{ in pencil block } " + label_block(form.source_label) if label_block(form.source_label) else "")
    lines.append(r"\mathsf{G} = \mathcal{U}^\top H_N^{-1}\,\mathcal{U}/n,\ g = \mathcal{U}^\top H_N^{-1} e/n,\ "
                 r"\mathsf{C} = n\,\mathcal{C}")
    lines.append(r"\quad \text{for the low-rank part } \mathcal{U}\mathcal{C}\mathcal{U}^\top \text{ of } H \text{ with } "
                 + vectors + source)
    lines.append(r"\quad \text{(the quadratic forms of } H_N^{-1} \text{ reduce to } \tau_{ij}, \tau^A_{ij})")
    return lines


def _vector_of(name: str) -> str | None:
    """The deterministic vector of a projection ``Z^T v`` (:func:`~.symbols.projection_name` inverted), else None."""
    if name == "s":
        return "mu"
    if name[:1] in ("k", "q") and (name[1:] == "" or name[1:].isdigit()):
        return ("wK" if name[0] == "k" else "wQ") + name[1:]
    return None


def woodbury_structure(form: WoodburyForm) -> dict | None:
    r"""The pattern of a low-rank form, when it has it; None otherwise (then it is printed block by block).

    The pattern: the rows come in blocks :math:`a`, each the labels :math:`y` and projections :math:`Z^\top v`
    for the vectors :math:`V_a` of the block; :math:`\mathsf G_{ab}` is :math:`\tau_{ab}` on the :math:`y` entry
    and :math:`\tau^A_{ab} V_a^\top V_b` on the projections (entries of the Gram matrix :math:`\Gamma` of the
    vectors), 0 in between; :math:`g` is a column of :math:`\mathsf G`. Every entry is checked here (``expand``
    of the difference is 0), so that what is printed from the pattern is the matrix the solver receives.
    Returns ``{"blocks": {a: [vector, ...]}, "gram": G as built, "source": column index}``.
    """
    if not form.size or not form.labels:
        return None
    groups = pencil_blocks(form.labels)
    blocks: dict[str, list[str]] = {}
    for block, rows in groups.items():
        names = [label_vector(form.labels[i]) for i in rows]
        vectors = [_vector_of(n) for n in names[1:]]
        if not block.isdigit() or names[0] != "y" or None in vectors:
            return None
        blocks[block] = vectors
    built = sp.zeros(form.size, form.size)
    plain, weighted = {}, {}
    for a, rows in groups.items():
        for b, columns in groups.items():
            plain[a, b] = built[rows[0], columns[0]] = form.gram[rows[0], columns[0]]
            first = form.gram[rows[1], columns[1]] if len(rows) > 1 and len(columns) > 1 else None
            if first is not None:
                weighted[a, b] = sp.cancel(first / S.gram_symbol(blocks[a][0], blocks[b][0]))
            for r, u in zip(rows[1:], blocks[a]):
                for k, v in zip(columns[1:], blocks[b]):
                    built[r, k] = weighted[a, b] * S.gram_symbol(u, v)
    if any(sp.expand(e - f) != 0 for e, f in zip(form.gram, built)):
        return None
    source = next((k for k in range(form.size) if form.gram[:, k] == form.source), None)
    if source is None:
        return None
    return {"blocks": blocks, "gram": built, "source": source, "plain": plain, "weighted": weighted}


def _matrix_tex(rows: list[list[str]]) -> str:
    return r"\begin{pmatrix}" + r" \\ ".join(" & ".join(row) for row in rows) + r"\end{pmatrix}"


def structured_woodbury_lines(name: str, form: WoodburyForm, page: Page) -> list[Line] | None:
    r"""The low-rank form by its pattern (:func:`woodbury_structure`): :math:`\Gamma` once, :math:`\mathsf G` in one line,
    the nonzero blocks of :math:`\mathsf C` (a transposed block named as such), :math:`g` a column of :math:`\mathsf G`."""
    structure = woodbury_structure(form)
    if structure is None:
        return None
    tex, ledger = page.tex, page.ledger
    printed = lambda e: to_latex(e).replace(r"{\tau^{A}}", r"\tau^{A}")
    index = lambda a, b: "".join(sorted((a, b)))
    if any(printed(e) != rf"\tau_{{{index(a, b)}}}" for (a, b), e in structure["plain"].items()) or \
            any(printed(e) != rf"\tau^{{A}}_{{{index(a, b)}}}" for (a, b), e in structure["weighted"].items()):
        return None                                     # entries that are not the averages tau_ab: block by block
    symmetric = True
    if ledger is not None:
        ledger.record(form.gram, structure["gram"])
        ledger.record(form.source, form.gram[:, structure["source"]])
    blocks = structure["blocks"]
    rank = sum(1 for vectors in blocks.values() for v in vectors if v.startswith("wK"))
    vectors = S.geometry_vectors(max(rank, 1)) if rank else ("mu",)
    gram = S.gram_matrix(rank) if rank else sp.Matrix([[S.theta]])
    listed = "(" + ", ".join(S.vector_latex(v) for v in vectors) + ")"
    size = form.size
    lines: list[Line] = [(name + " &= " + tex(form.offset) + r" - g^\top \mathsf{C}\,\left(I_{" + str(size)
                          + r"} + \mathsf{G}\mathsf{C}\right)^{-1} g", True)]
    if rank <= 1:
        lines.append((r"\Gamma &= " + listed + r"^\top " + listed + " = " + tex(gram), True))
    else:                                      # (1 + 2r)^2 entries: their names by pattern, checked against the symbols
        named = {S.theta: r"\theta", S.gram_symbol("mu", "wK1"): r"\alpha_{K 1}",
                 S.gram_symbol("wK1", "wQ2"): r"\omega_{KQ 12}", S.gram_symbol("wK1", "wK2"): r"\omega_{KK 12}"}
        if any(to_latex(symbol) != text for symbol, text in named.items()):
            return None
        lines.append((r"\Gamma &= V^\top V,\quad V = (\mu, w_K^{(1)}, \dots, w_K^{(" + str(rank) + r")}, w_Q^{(1)}, "
                      r"\dots, w_Q^{(" + str(rank) + r")}),", True))
        lines.append((r"& \theta = \|\mu\|^2,\ \alpha_{K h} = \mu^\top w_K^{(h)},\ \alpha_{Q h} = \mu^\top w_Q^{(h)},",
                      False))
        lines.append((r"& \omega_{KK hl} = w_K^{(h)\top} w_K^{(l)},\ \omega_{QQ hl} = w_Q^{(h)\top} w_Q^{(l)},\ "
                      r"\omega_{KQ hl} = w_K^{(h)\top} w_Q^{(l)}", False))
    names = list(blocks)
    last = names[-1]
    lines.append((r"\mathsf{G} &= \left(\mathsf{G}_{ab}\right)_{a, b = 1}^{" + last + r"}, \quad \mathsf{G}_{ab} = "
                  r"\begin{pmatrix} \tau_{ab} & 0 \\ 0 & \tau^{A}_{ab} V_a^\top V_b \end{pmatrix}", True))
    groups = ",\\ ".join(f"V_{{{a}}} = " + ("(" if len(v) > 1 else "") + ", ".join(S.vector_latex(x) for x in v)
                         + (")" if len(v) > 1 else "") for a, v in blocks.items())
    lines.append((r"& \text{with } " + groups + ",", False))
    if symmetric:
        lines.append((r"& \tau_{ba} = \tau_{ab},\ \tau^{A}_{ba} = \tau^{A}_{ab},", False))
    groups_of = pencil_blocks(form.labels)
    layout, parts = [], []
    for a in names:
        row = []
        for b in names:
            block = form.core.extract(groups_of[a], groups_of[b])
            mirror = form.core.extract(groups_of[b], groups_of[a])
            if block.is_zero_matrix:
                row.append("0")
            elif names.index(b) < names.index(a) and mirror.T == block:
                row.append(r"\mathsf{C}_{" + b + a + r"}^\top")
                if ledger is not None:
                    ledger.record(block, mirror.T)
            else:
                row.append(r"\mathsf{C}_{" + a + b + "}")
                parts.append((r"\mathsf{C}_{" + a + b + "} &= " + tex(block), True))
        layout.append(row)
    lines.append((r"\mathsf{C} &= " + _matrix_tex(layout), True))
    lines.extend(parts)
    source = structure["source"]
    lines.append((rf"& g = \mathsf{{G}} e_{{{source + 1}}} \ (\text{{column {source + 1} of }} \mathsf{{G}})", False))
    return lines
