import { describe, expect, it } from 'vitest';
import { allowedHostsOf, hostRefusal, LOOPBACK_HOSTS } from '../../functions/local/server.ts';

/** Which requests a loopback listener answers (§22): its own names in `Host`, and in `Origin` when one is sent. */

describe('hostRefusal', () => {
  it.each([['localhost:3000'], ['127.0.0.1:3000'], ['[::1]:3000'], ['LOCALHOST'], ['127.0.0.1']])(
    'answers Host %s, on any port',
    (host) => {
      expect(hostRefusal({ host }, LOOPBACK_HOSTS)).toBeUndefined();
    },
  );

  it.each([
    ['attacker.example:3000'],
    ['localhost.attacker.example:3000'],
    ['127.0.0.1.nip.io'],
    ['[::2]:3000'],
    ['localhost:3000:1'],
    [''],
    [undefined],
  ])('refuses Host %j, naming the names it answers and HANDBACK_ALLOWED_HOSTS', (host) => {
    const refusal = hostRefusal({ host }, LOOPBACK_HOSTS);
    expect(refusal).toContain('localhost, 127.0.0.1, [::1]');
    expect(refusal).toContain('HANDBACK_ALLOWED_HOSTS');
  });

  it.each([
    ['http://localhost:5173', undefined],
    ['http://127.0.0.1:3000', undefined],
    ['http://[::1]:8080', undefined],
    ['http://attacker.example', 'not Origin "http://attacker.example"'],
    ['null', 'not Origin "null"'],
    ['http://localhost.attacker.example', 'not Origin'],
  ])('with Host localhost, takes Origin %s only from its own names', (origin, refused) => {
    const refusal = hostRefusal({ host: 'localhost:3000', origin }, LOOPBACK_HOSTS);
    if (refused === undefined) expect(refusal).toBeUndefined();
    else expect(refusal).toContain(refused);
  });

  it('answers the names HANDBACK_ALLOWED_HOSTS adds', () => {
    const allowed = allowedHostsOf('127.0.0.1', 'dev.internal, Box.Local').allowedHosts ?? [];
    expect(hostRefusal({ host: 'dev.internal:3000', origin: 'https://box.local' }, allowed)).toBeUndefined();
    expect(hostRefusal({ host: 'other.internal:3000' }, allowed)).toContain('dev.internal, box.local');
  });
});

describe('allowedHostsOf', () => {
  it.each([['127.0.0.1'], ['127.1.2.3'], ['localhost'], ['::1'], ['[::1]']])(
    'checks hosts on the loopback address %s',
    (host) => {
      expect(allowedHostsOf(host, undefined)).toEqual({ allowedHosts: [...LOOPBACK_HOSTS] });
    },
  );

  it('checks no host on all addresses unless HANDBACK_ALLOWED_HOSTS names some', () => {
    expect(allowedHostsOf('0.0.0.0', undefined)).toEqual({});
    expect(allowedHostsOf('0.0.0.0', ' , ')).toEqual({});
    expect(allowedHostsOf('0.0.0.0', 'box.lan')).toEqual({ allowedHosts: [...LOOPBACK_HOSTS, 'box.lan'] });
  });
});
