/**
 * Kafka's ssl.principal.mapping.rules (KIP-371): how a TLS client's certificate subject becomes
 * its principal name, as Kafka's SslPrincipalMapper does it. Rules are tried in order, the first
 * that applies names the principal:
 *
 * - `DEFAULT`: the whole distinguished name (RFC 2253, 'CN=alice,OU=ops,O=Example');
 * - `RULE:pattern/replacement/` with an optional `L` or `U` after it: when the pattern matches
 *   the whole name, the name with the pattern's matches replaced (`$1` and so on), lower- or
 *   upper-cased. `RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L` names 'CN=Svc,OU=ServiceUsers,O=X'
 *   'svc'.
 *
 * Rules are separated by commas (a pattern may hold commas of its own). Without rules the
 * setting is `DEFAULT`. A name no rule applies to has no principal: the connection is refused.
 */
import { ConfigError } from '../storage/log-config.js';

export const SSL_PRINCIPAL_MAPPING_RULES = 'ssl.principal.mapping.rules';

const RULE = String.raw`(DEFAULT)|RULE:((?:\\.|[^\\/])*)/((?:\\.|[^\\/])*)/([LU]?).*?|(.*?)`;
const SPLITTER = new RegExp(String.raw`\s*(` + RULE + String.raw`)\s*(?:,\s*|$)`, 'gy');
const PARSER = new RegExp(`^(?:${RULE})`);

type Rule = { kind: 'default' } | { kind: 'rule'; pattern: RegExp; whole: RegExp; replacement: string; lower: boolean; upper: boolean };

/** Java's replacement syntax (a backslash quotes the next character) in JavaScript's. */
function jsReplacement(java: string): string {
  let out = '';
  for (let i = 0; i < java.length; i++) {
    const ch = java[i]!;
    if (ch === '\\' && i + 1 < java.length) {
      const next = java[++i]!;
      out += next === '$' ? '$$' : next;
    } else out += ch;
  }
  return out;
}

export class SslPrincipalMapper {
  private constructor(private readonly rules: readonly Rule[]) {}

  /** The mapper of a rules setting; throws ConfigError naming the rule that cannot be read. */
  static fromRules(setting: string | undefined | null): SslPrincipalMapper {
    const text = (setting ?? 'DEFAULT').trim();
    const rules: Rule[] = [];
    SPLITTER.lastIndex = 0;
    let m: RegExpExecArray | null;
    while (SPLITTER.lastIndex < text.length && (m = SPLITTER.exec(text)) !== null) {
      const raw = m[1]!;
      if (m[0] === '') break;
      const p = PARSER.exec(raw);
      if (!p || p[0].length !== raw.length) throw new ConfigError(SSL_PRINCIPAL_MAPPING_RULES, `invalid rule: ${raw}`);
      if (p[1] !== undefined) rules.push({ kind: 'default' });
      else if (p[2] !== undefined) {
        let pattern: RegExp;
        let whole: RegExp;
        try {
          pattern = new RegExp(p[2], 'g');
          whole = new RegExp(`^(?:${p[2]})$`);
        } catch (e) {
          throw new ConfigError(SSL_PRINCIPAL_MAPPING_RULES, `invalid rule pattern ${p[2]}: ${(e as Error).message}`);
        }
        rules.push({ kind: 'rule', pattern, whole, replacement: jsReplacement(p[3] ?? ''), lower: p[4] === 'L', upper: p[4] === 'U' });
      } else if (raw.trim() !== '') throw new ConfigError(SSL_PRINCIPAL_MAPPING_RULES, `invalid rule: ${raw}`);
    }
    if (SPLITTER.lastIndex !== 0 && SPLITTER.lastIndex < text.length) throw new ConfigError(SSL_PRINCIPAL_MAPPING_RULES, `invalid rules after: ${text.slice(0, SPLITTER.lastIndex)}`);
    return new SslPrincipalMapper(rules);
  }

  /** The principal name of a distinguished name, or null when no rule applies. */
  nameOf(dn: string): string | null {
    for (const r of this.rules) {
      if (r.kind === 'default') return dn;
      if (!r.whole.test(dn)) continue;
      r.pattern.lastIndex = 0;
      const name = dn.replace(r.pattern, r.replacement);
      return r.lower ? name.toLowerCase() : r.upper ? name.toUpperCase() : name;
    }
    return null;
  }
}
