// An OpenID provider for the dashboard's sign-in tests: panva's certified
// oidc-provider, with its development login and consent pages (any login name
// is accepted; the password is not checked). Each person NAME signs in as
// NAME@example.com, in the groups PROVIDER_GROUPS gives them; a NAME that
// starts with `unverified` gets an email the provider does not vouch for.
//
//   PROVIDER_PORT=0 CLIENT_ID=… CLIENT_SECRET=… REDIRECT_URI=… \
//   PROVIDER_GROUPS='{"ann":["platform"]}' node provider.mjs
//
// Prints `listening http://127.0.0.1:PORT` once it serves.
import Provider from 'oidc-provider';
import { createServer } from 'node:http';

const groups = JSON.parse(process.env.PROVIDER_GROUPS || '{}');
const server = createServer();
await new Promise((ok) => server.listen(Number(process.env.PROVIDER_PORT || 0), '127.0.0.1', ok));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [{
    client_id: process.env.CLIENT_ID,
    client_secret: process.env.CLIENT_SECRET,
    redirect_uris: [process.env.REDIRECT_URI],
    response_types: ['code'],
    grant_types: ['authorization_code'],
  }],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    groups: ['groups'],
  },
  findAccount: async (_ctx, id) => ({
    accountId: id,
    claims: async () => ({
      sub: id,
      email: `${id}@example.com`,
      email_verified: !id.startsWith('unverified'),
      groups: groups[id] || [],
    }),
  }),
  cookies: { keys: ['blaise-test-only'] },
  features: { devInteractions: { enabled: true } },
});
// http on 127.0.0.1 in a test: the provider would otherwise insist on https.
provider.proxy = false;
server.on('request', provider.callback());
console.log(`listening ${issuer}`);
