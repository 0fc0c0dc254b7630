// A minimal Medusa application for test/integration/medusa-order.test.ts: Medusa's default
// commerce modules, with the Payment Module's payd provider from this package's sources. It lives
// inside packages/medusa so Medusa's packages resolve from this package's own node_modules, as a
// shop's app resolves them from its own. The test sets the PAYD_* variables from its sandbox payd.
const { join } = require('node:path');
const { defineConfig, Modules } = require('@medusajs/framework/utils');

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: { jwtSecret: 'test-only', cookieSecret: 'test-only', storeCors: '*', adminCors: '*', authCors: '*' },
  },
  admin: { disable: true },
  modules: [
    {
      resolve: '@medusajs/medusa/payment',
      key: Modules.PAYMENT,
      options: {
        // Medusa delays a webhook's processing (5 s by default) to let a storefront's own
        // authorization finish first; the test has none, so it need not wait.
        webhook_delay: 100,
        providers: [
          {
            resolve: join(__dirname, '..', 'src', 'index.ts'),
            id: 'payd',
            options: {
              baseUrl: process.env.PAYD_URL,
              clientId: process.env.PAYD_CLIENT_ID,
              clientSecret: process.env.PAYD_CLIENT_SECRET,
              webhookSecret: process.env.PAYD_WEBHOOK_SECRET,
            },
          },
        ],
      },
    },
  ],
});
