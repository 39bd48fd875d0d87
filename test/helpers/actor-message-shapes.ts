/**
 * The shapes of the messages actors take, read from their TypeScript sources: every object type
 * literal with a `type: 'Name'` property under actors/ is a message shape, its other properties
 * the fields, each with the kind of value it declares (named interfaces and type aliases are
 * followed, a few levels deep). Only the syntax is read, no type checking: enough for a fuzzer
 * to know what a well-typed field looks like, so it can send everything else.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export type Shape =
  | { kind: 'string' | 'number' | 'boolean' | 'bytes' | 'ref' | 'any' }
  | { kind: 'literal'; values: (string | number | boolean)[] }
  | { kind: 'array'; element: Shape }
  | { kind: 'record'; value: Shape }
  | { kind: 'object'; fields: Record<string, FieldShape> }
  | { kind: 'union'; options: Shape[] };

export interface FieldShape {
  shape: Shape;
  optional: boolean;
  nullable: boolean;
}

export interface MessageShape {
  type: string;
  /** The actors/ folder the shape was declared in. */
  folder: string;
  fields: Record<string, FieldShape>;
}

const ANY: Shape = { kind: 'any' };
const MAX_DEPTH = 4;

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listTs(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Reads every message shape declared under `roots` (files under `actors/` give their folder). */
export function readMessageShapes(repoRoot: string, roots = ['actors', 'src/protocol', 'src/security']): MessageShape[] {
  const declarations = new Map<string, ts.Node>();
  const files: { folder: string; sf: ts.SourceFile }[] = [];
  for (const root of roots) {
    for (const file of listTs(path.join(repoRoot, root))) {
      const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
      const rel = path.relative(path.join(repoRoot, 'actors'), file);
      files.push({ folder: rel.startsWith('..') ? '' : rel.split(path.sep)[0]!, sf });
      for (const st of sf.statements) {
        if ((ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) && !declarations.has(st.name.text)) declarations.set(st.name.text, st);
      }
    }
  }
  const shapes: MessageShape[] = [];
  for (const { folder, sf } of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isTypeLiteralNode(node)) {
        const t = messageTypeOf(node.members);
        if (t !== null) shapes.push({ type: t, folder, fields: fieldsOf(node.members, declarations, 0, 'type') });
      }
      if (ts.isInterfaceDeclaration(node)) {
        const t = messageTypeOf(node.members);
        if (t !== null) shapes.push({ type: t, folder, fields: fieldsOf(node.members, declarations, 0, 'type') });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return shapes;
}

function propName(m: ts.TypeElement): string | null {
  if (!m.name) return null;
  if (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) return m.name.text;
  return null;
}

function messageTypeOf(members: ts.NodeArray<ts.TypeElement>): string | null {
  for (const m of members) {
    if (ts.isPropertySignature(m) && propName(m) === 'type' && m.type && ts.isLiteralTypeNode(m.type) && ts.isStringLiteral(m.type.literal)) {
      return m.type.literal.text;
    }
  }
  return null;
}

function fieldsOf(members: ts.NodeArray<ts.TypeElement>, decls: Map<string, ts.Node>, depth: number, skip?: string): Record<string, FieldShape> {
  const out: Record<string, FieldShape> = {};
  for (const m of members) {
    if (!ts.isPropertySignature(m)) continue;
    const name = propName(m);
    if (name === null || name === skip) continue;
    const { shape, nullable } = m.type ? shapeOf(m.type, decls, depth + 1) : { shape: ANY, nullable: true };
    out[name] = { shape, optional: !!m.questionToken, nullable };
  }
  return out;
}

/** The shape of a type node, and whether it admits null (or undefined). */
function shapeOf(node: ts.TypeNode, decls: Map<string, ts.Node>, depth: number): { shape: Shape; nullable: boolean } {
  if (depth > MAX_DEPTH) return { shape: ANY, nullable: true };
  switch (node.kind) {
    case ts.SyntaxKind.StringKeyword:
      return { shape: { kind: 'string' }, nullable: false };
    case ts.SyntaxKind.NumberKeyword:
    case ts.SyntaxKind.BigIntKeyword:
      return { shape: { kind: 'number' }, nullable: false };
    case ts.SyntaxKind.BooleanKeyword:
      return { shape: { kind: 'boolean' }, nullable: false };
    case ts.SyntaxKind.UndefinedKeyword:
    case ts.SyntaxKind.NullKeyword:
      return { shape: ANY, nullable: true };
  }
  if (ts.isParenthesizedTypeNode(node)) return shapeOf(node.type, decls, depth);
  if (ts.isTypeOperatorNode(node)) return shapeOf(node.type, decls, depth);
  if (ts.isLiteralTypeNode(node)) {
    const l = node.literal;
    if (l.kind === ts.SyntaxKind.NullKeyword) return { shape: ANY, nullable: true };
    if (ts.isStringLiteral(l)) return { shape: { kind: 'literal', values: [l.text] }, nullable: false };
    if (ts.isNumericLiteral(l)) return { shape: { kind: 'literal', values: [Number(l.text)] }, nullable: false };
    if (l.kind === ts.SyntaxKind.TrueKeyword || l.kind === ts.SyntaxKind.FalseKeyword) return { shape: { kind: 'boolean' }, nullable: false };
    return { shape: ANY, nullable: true };
  }
  if (ts.isArrayTypeNode(node)) return { shape: { kind: 'array', element: shapeOf(node.elementType, decls, depth + 1).shape }, nullable: false };
  if (ts.isTupleTypeNode(node)) return { shape: { kind: 'array', element: ANY }, nullable: false };
  if (ts.isTypeLiteralNode(node)) return { shape: { kind: 'object', fields: fieldsOf(node.members, decls, depth) }, nullable: false };
  if (ts.isUnionTypeNode(node)) {
    let nullable = false;
    const options: Shape[] = [];
    for (const t of node.types) {
      const s = shapeOf(t, decls, depth);
      if (s.nullable) nullable = true;
      if (s.shape.kind !== 'any' || !s.nullable) options.push(s.shape);
    }
    if (options.every((o) => o.kind === 'literal')) {
      return { shape: { kind: 'literal', values: options.flatMap((o) => (o as { values: (string | number | boolean)[] }).values) }, nullable };
    }
    return { shape: options.length === 1 ? options[0]! : { kind: 'union', options }, nullable };
  }
  if (ts.isTypeReferenceNode(node)) {
    const name = ts.isIdentifier(node.typeName) ? node.typeName.text : node.typeName.right.text;
    const args = node.typeArguments ?? [];
    if (name === 'Uint8Array' || name === 'Buffer') return { shape: { kind: 'bytes' }, nullable: false };
    if (name === 'ActorRef') return { shape: { kind: 'ref' }, nullable: false };
    if (name === 'Array' || name === 'ReadonlyArray') return { shape: { kind: 'array', element: args[0] ? shapeOf(args[0], decls, depth + 1).shape : ANY }, nullable: false };
    if (name === 'Record' && args[1]) return { shape: { kind: 'record', value: shapeOf(args[1], decls, depth + 1).shape }, nullable: false };
    if (name === 'Readonly' && args[0]) return shapeOf(args[0], decls, depth);
    const d = decls.get(name);
    if (d && ts.isInterfaceDeclaration(d)) return { shape: { kind: 'object', fields: fieldsOf(d.members, decls, depth) }, nullable: false };
    if (d && ts.isTypeAliasDeclaration(d)) return shapeOf(d.type, decls, depth + 1);
  }
  return { shape: ANY, nullable: true };
}
