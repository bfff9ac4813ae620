"""Mutants of the reference solutions: the checks' own test (each mutant must lose marks).

The mutants are mutmut's: its visitor (mutmut.mutation.file_mutation.MutationVisitor) walks the
libcst tree of a solution cell with every operator of its table
(mutmut.mutation.mutators.mutation_operators: numbers, strings, names, assignments, calls'
arguments, operators, keywords, conditional expressions, ...), on the lines of the solution block
only (between `### BEGIN SOLUTION` and `### END SOLUTION`), and each mutation is applied alone: the
mutated node's code, written at the original node's indentation, takes the place of the original's
(the cell as mutmut's deep_replace would write it, without rewriting the whole tree per mutant: a
tenth of the time). A mutant is named by the line where it starts and what changed there: "line 7:
`>=` -> `>`" (with the column when the same change happens twice on a line).
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import libcst as cst
from libcst._nodes.internal import CodegenState  # what Module.code_for_node writes a node with
from libcst.metadata import MetadataWrapper, ParentNodeProvider, WhitespaceInclusivePositionProvider
from mutmut.mutation.file_mutation import MutationVisitor
from mutmut.mutation.mutators import mutation_operators
from mutmut.mutation.pragma_handling import IgnoredCode


@dataclass(frozen=True)
class Mutant:
    name: str  # "line 7: `>=` -> `>`"
    source: str  # the whole cell, mutated


def solution_lines(source: str) -> set[int]:
    """The cell's lines (1-based) inside its solution block."""
    lines = source.splitlines()
    begin = next(i for i, line in enumerate(lines, 1) if "### BEGIN SOLUTION" in line)
    end = next(i for i, line in enumerate(lines, 1) if "### END SOLUTION" in line)
    return set(range(begin + 1, end))


def mutants(source: str) -> list[Mutant]:
    """Every mutant mutmut makes of the cell's solution block, in its order."""
    # mutmut's create_mutations would also read its configuration from the working directory
    # (pragmas, patterns): a solution block has none, so its visitor is given an empty one
    nothing_ignored = IgnoredCode(no_mutate_lines=set(), ignore_node_lines=set(),
                                  ignore_pattern_lines=set())
    visitor = MutationVisitor(mutation_operators, nothing_ignored,
                              covered_lines=solution_lines(source))
    tree = MetadataWrapper(cst.parse_module(source))
    tree.visit(visitor)  # the mutations name nodes of tree.module
    made = [replaced(tree, source, m.original_node, m.mutated_node) for m in visitor.mutations]
    changes = [change(source, mutated) for mutated in made]
    names = [f"line {line}: `{before}` -> `{after}`" for line, _, before, after in changes]
    return [Mutant(name if names.count(name) == 1 else name.replace(":", f", col {column}:", 1),
                   mutated)
            for name, (_, column, _, _), mutated in zip(names, changes, made, strict=True)]


def replaced(tree: MetadataWrapper, source: str, original: cst.CSTNode,
             mutated: cst.CSTNode) -> str:
    """`source` with `original` (a node of tree.module) written as `mutated`."""
    # the text the node writes, its own whitespace
    span = tree.resolve(WhitespaceInclusivePositionProvider)[original]
    starts = [0, *itertools.accumulate(len(line) for line in source.splitlines(keepends=True))]
    begin, end = (starts[p.line - 1] + p.column for p in (span.start, span.end))
    assert code(tree, original) == source[begin:end], "the node's text is not where libcst puts it"
    return source[:begin] + code(tree, mutated, at=original) + source[end:]


def code(tree: MetadataWrapper, node: cst.CSTNode, at: cst.CSTNode | None = None) -> str:
    """The code of `node` written where `at` (by default the node itself) is in tree.module: at its
    indentation."""
    module, parents, indents, inside = tree.module, tree.resolve(ParentNodeProvider), [], at or node
    while inside in parents:
        inside = parents[inside]
        if isinstance(inside, cst.IndentedBlock):
            indents.insert(0, module.default_indent if inside.indent is None else inside.indent)
    state = CodegenState(default_indent=module.default_indent,
                         default_newline=module.default_newline, indent_tokens=indents)
    node._codegen(state)
    return "".join(state.tokens)


def change(source: str, mutated: str) -> tuple[int, int, str, str]:
    """(line, column, before, after): where `mutated` starts to differ from `source` and the words
    that differ (whitespace-separated, so `<` -> `<=` reads whole; a span over lines is shown on
    one)."""
    shorter = min(len(source), len(mutated))
    start = next((i for i, (a, b) in enumerate(zip(source, mutated, strict=False)) if a != b),
                 shorter)
    end = 0  # characters in common at the end, not overlapping the start
    while end < shorter - start and source[-1 - end] == mutated[-1 - end]:
        end += 1
    while start > 0 and not source[start - 1].isspace():
        start -= 1
    while end > 0 and not source[len(source) - end].isspace():
        end -= 1
    line = source.count("\n", 0, start) + 1
    column = start - (source.rfind("\n", 0, start) + 1)
    return line, column, one_line(source[start:len(source) - end]), one_line(
        mutated[start:len(mutated) - end])


def one_line(code: str) -> str:
    return re.sub(r"\s+", " ", code).strip()
