import { expect } from 'chai';
import { SslPrincipalMapper } from '../../src/security/ssl-principal-mapper.js';
import { ConfigError } from '../../src/storage/log-config.js';

describe('security/ssl-principal-mapper', () => {
  it('DEFAULT (and no setting) keeps the whole name', () => {
    expect(SslPrincipalMapper.fromRules('DEFAULT').nameOf('CN=alice,O=Example')).to.equal('CN=alice,O=Example');
    expect(SslPrincipalMapper.fromRules(undefined).nameOf('CN=alice,O=Example')).to.equal('CN=alice,O=Example');
  });

  it("a rule whose pattern matches the whole name replaces it, Kafka's first example", () => {
    const m = SslPrincipalMapper.fromRules('RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,DEFAULT');
    expect(m.nameOf('CN=kafka-svc,OU=ServiceUsers,O=Unknown,L=Unknown,ST=Unknown,C=Unknown')).to.equal('kafka-svc');
    expect(m.nameOf('CN=Adam,OU=Admin,O=Unknown,L=Unknown,ST=Unknown,C=Unknown')).to.equal('adam@admin');
    expect(m.nameOf('cn=Bob,DC=example')).to.equal('bob');
    expect(m.nameOf('O=nobody')).to.equal('O=nobody');
  });

  it('L and U change the case; a back reference beyond the groups stays literal', () => {
    expect(SslPrincipalMapper.fromRules('RULE:^CN=(.*)$/$1/U').nameOf('CN=alice')).to.equal('ALICE');
    expect(SslPrincipalMapper.fromRules('RULE:^CN=(.*)$/$1-$2/').nameOf('CN=alice')).to.equal('alice-$2');
    // Java's replacement quoting: \$ a literal dollar, \\ a literal backslash
    expect(SslPrincipalMapper.fromRules('RULE:^CN=(.*)$/\\$1/').nameOf('CN=alice')).to.equal('$1');
    expect(SslPrincipalMapper.fromRules('RULE:^CN=(.*)$/\\\\$1/').nameOf('CN=alice')).to.equal('\\alice');
  });

  it('without DEFAULT, a name no rule applies to has no principal; an empty setting has no rules', () => {
    expect(SslPrincipalMapper.fromRules('RULE:^CN=(.*)$/$1/').nameOf('O=x')).to.equal(null);
    expect(SslPrincipalMapper.fromRules('').nameOf('CN=a')).to.equal(null);
  });

  it('refuses a rule it cannot read, naming it', () => {
    expect(() => SslPrincipalMapper.fromRules('RULE:abc')).to.throw(ConfigError, /invalid rule: RULE:abc/);
    expect(() => SslPrincipalMapper.fromRules('RULE:(/x/')).to.throw(ConfigError, /invalid rule pattern \(/);
    expect(() => SslPrincipalMapper.fromRules('DEFAULT,nonsense')).to.throw(ConfigError, /invalid rule: nonsense/);
  });
});
