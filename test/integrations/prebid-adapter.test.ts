// The Prebid adapter's spec file (integrations/prebid/nativaBidAdapter_spec.js) runs with the rest
// of the tests; the browser test of the adapter inside a Prebid.js build is test/e2e/prebid.test.ts.
import '../../integrations/prebid/nativaBidAdapter_spec.js';
