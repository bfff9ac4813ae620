"""Mutants of the reference solutions: the checks' own test (each mutant must lose marks).

The operators are mutmut's, on the solution block of each solution cell (the lines between `### BEGIN
SOLUTION` and `### END SOLUTION`): a comparison flipped, an arithmetic or boolean operator swapped, an integer
constant moved by one, True and False swapped, a statement removed, a slice bound moved by one, break and
continue swapped. A mutant is named by its line in the cell and what changed: "line 7: >= -> >".
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

SWAPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
         ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
         ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
         ast.Mod: ast.FloorDiv, ast.And: ast.Or, ast.Or: ast.And}
SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in",
           ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-", ast.Mult: "*",
           ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.And: "and", ast.Or: "or"}


@dataclass(frozen=True)
class Mutant:
    name: str  # "line 7: >= -> >"
    source: str  # the whole cell, mutated


def solution_lines(source: str) -> range:
    """The cell's lines (1-based) inside its solution block."""
    lines = source.splitlines()
    begin = next(i for i, line in enumerate(lines, 1) if "### BEGIN SOLUTION" in line)
    end = next(i for i, line in enumerate(lines, 1) if "### END SOLUTION" in line)
    return range(begin + 1, end)


def changes(node: ast.AST) -> list[tuple[str, callable]]:
    """The mutations of one node: (what changes, a function that applies it to a copy of the node)."""
    return operator_changes(node) or constant_changes(node) or jump_changes(node)


def operator_changes(node: ast.AST) -> list[tuple[str, callable]]:
    """A comparison flipped, an arithmetic or boolean operator swapped, a `not` removed."""
    found = []
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in SWAPS:
                def flip(n, i=i, op=op):
                    n.ops[i] = SWAPS[type(op)]()
                found.append((f"{SYMBOLS[type(op)]} -> {SYMBOLS[SWAPS[type(op)]]}", flip))
    elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in SWAPS:
        def swap(n):
            n.op = SWAPS[type(n.op)]()
        found.append((f"{SYMBOLS[type(node.op)]} -> {SYMBOLS[SWAPS[type(node.op)]]}", swap))
    elif isinstance(node, ast.BoolOp):
        def other(n):
            n.op = SWAPS[type(n.op)]()
        found.append((f"{SYMBOLS[type(node.op)]} -> {SYMBOLS[SWAPS[type(node.op)]]}", other))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        found.append(("not removed", None))  # replaced by its operand, in `mutate`
    return found


def constant_changes(node: ast.AST) -> list[tuple[str, callable]]:
    """True and False swapped, an integer moved by one either way."""
    found = []
    if isinstance(node, ast.Constant) and type(node.value) is bool:
        def negate(n):
            n.value = not n.value
        found.append((f"{node.value} -> {not node.value}", negate))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        for delta in (1, -1):
            def move(n, delta=delta):
                n.value += delta
            found.append((f"{node.value} -> {node.value + delta}", move))
    return found


def jump_changes(node: ast.AST) -> list[tuple[str, str]]:
    """break and continue swapped."""
    if isinstance(node, ast.Break):
        return [("break -> continue", "continue")]
    if isinstance(node, ast.Continue):
        return [("continue -> break", "break")]
    return []


class Replace(ast.NodeTransformer):
    """Replaces the node at `target` (its position in ast.walk order) by `make(node)`."""

    def __init__(self, target: int, make):
        self.target, self.make, self.at = target, make, -1

    def visit(self, node):
        self.at += 1
        if self.at == self.target:
            return self.make(node)
        return self.generic_visit(node)


def mutate(tree: ast.Module, target: int, make) -> str:
    new = Replace(target, make).visit(copy.deepcopy(tree))
    return ast.unparse(ast.fix_missing_locations(new))


def mutants(source: str) -> list[Mutant]:
    """Every mutant of the cell's solution block, in source order; the same change twice on one line is told apart
    by its column ("line 18, col 52: + -> -")."""
    tree = ast.parse(source)
    inside = solution_lines(source)
    made: list[Mutant] = []
    for target, node in enumerate(n for n in walk(tree)):
        line = getattr(node, "lineno", None)
        if line not in inside:
            continue
        where = f"{line}, col {node.col_offset}" if same_line_twice(tree, node) else f"{line}"
        for what, how in changes(node):
            if how is None:
                make = lambda n: n.operand  # noqa: E731 - `not x` -> `x`
            elif isinstance(how, str):
                make = lambda n, how=how: ast.Continue() if how == "continue" else ast.Break()  # noqa: E731
            else:
                make = lambda n, how=how: (lambda m: (how(m), m)[1])(copy.deepcopy(n))  # noqa: E731
            made.append(Mutant(f"line {where}: {what}", mutate(tree, target, make)))
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.Return)):
            made.append(Mutant(f"line {where}: statement removed", mutate(tree, target, lambda n: ast.Pass())))
        if isinstance(node, ast.Slice):
            for bound in ("lower", "upper"):
                if getattr(node, bound) is not None:
                    made.append(Mutant(f"line {where}: slice {bound} + 1", mutate(tree, target, moved(bound))))
    return made


def same_line_twice(tree: ast.AST, node: ast.AST) -> bool:
    """Another node of the same kind starts on the same line (so the line alone does not name the mutant)."""
    return sum(1 for n in ast.walk(tree) if type(n) is type(node) and getattr(n, "lineno", None) == node.lineno) > 1


def moved(bound: str):
    def make(n):
        n = copy.deepcopy(n)
        setattr(n, bound, ast.BinOp(getattr(n, bound), ast.Add(), ast.Constant(1)))
        return n
    return make


def walk(tree: ast.AST):
    """ast.walk in the order Replace visits: depth first, fields in order (so positions agree)."""
    yield tree
    for child in ast.iter_child_nodes(tree):
        yield from walk(child)
