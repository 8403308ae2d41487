import { describe, expect, it } from 'vitest';
import { claimsOf, DirectoryKeys, putClaim, putPerson, releaseClaim } from '../../functions/directory/table-params.ts';
import { personOf } from '../../functions/testing/index.ts';

describe('the table-kept directory’s keys and commands (pure)', () => {
  it('keeps a tenant’s directory in one partition no run key can be, a tenant’s # encoded', () => {
    expect(DirectoryKeys.partition('acme#R#x')).toBe('T#acme%23R%23x#DIR');
    expect(DirectoryKeys.person('ann')).toBe('P#ann');
    expect(DirectoryKeys.member('fin#ops', 'ann')).toBe('G#fin%23ops#ann');
    expect(DirectoryKeys.group('fin')).toBe('G#fin#');
  });

  it('claims subjects as given, Slack users by team and user, emails folded (ASCII only)', () => {
    expect(DirectoryKeys.claim({ subject: 'U-Ann' })).toBe('K#s#U-Ann');
    expect(DirectoryKeys.claim({ slack: { team: 'T1', user: 'U1' } })).toBe('K#k#T1:U1');
    expect(DirectoryKeys.claim({ email: 'Ann@Example.COM' })).toBe('K#e#ann@example.com');
    expect(DirectoryKeys.claim({ email: '\u212Aim@example.com' })).toBe('K#e#\u212Aim@example.com');
    expect(claimsOf(personOf('t')).map((claim) => [claim.sk, claim.conflict])).toEqual([
      ['K#s#u-ann', 'subject'],
      ['K#k#T0TEAM:U0ANN', 'slack'],
      ['K#e#ann@example.com', 'email'],
      ['K#e#ann.private@example.org', 'email'],
    ]);
  });

  it('writes a new person only to a free id, a known one only at the revision read', () => {
    const ann = personOf('acme');
    expect(putPerson('t', ann, 7, undefined)).toEqual({
      TableName: 't',
      Item: { pk: 'T#acme#DIR', sk: 'P#ann', person: JSON.stringify(ann), rev: 7 },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': 'pk' },
    });
    expect(putPerson('t', ann, 8, 7)).toMatchObject({
      ConditionExpression: '#rev = :rev',
      ExpressionAttributeValues: { ':rev': 7 },
    });
  });

  it('claims an identity only if free or the same holder’s, and releases it only if no later write claimed it', () => {
    expect(putClaim('t', 'acme', 'K#s#x', 'ann', 3, 1000)).toEqual({
      TableName: 't',
      Item: { pk: 'T#acme#DIR', sk: 'K#s#x', holder: 'ann', rev: 3, at: 1000 },
      ConditionExpression: 'attribute_not_exists(#pk) OR #holder = :holder',
      ExpressionAttributeNames: { '#pk': 'pk', '#holder': 'holder' },
      ExpressionAttributeValues: { ':holder': 'ann' },
    });
    expect(releaseClaim('t', 'acme', 'K#s#x', 'ann', 4)).toEqual({
      TableName: 't',
      Key: { pk: 'T#acme#DIR', sk: 'K#s#x' },
      ConditionExpression: '#holder = :holder AND #rev < :rev',
      ExpressionAttributeNames: { '#holder': 'holder', '#rev': 'rev' },
      ExpressionAttributeValues: { ':holder': 'ann', ':rev': 4 },
    });
  });
});
