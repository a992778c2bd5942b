// Package browsertest holds the web app's scenarios as a person lives them, driven in
// Debian's Chromium (internal/testkit/browser) against the API and the app served
// together on a fresh database: each page, each form and each live update, in English
// at 1280 px and in Spanish at 360 px, checked with axe and failing on any error the
// page reports. It has no code of its own; its tests are the package.
package browsertest
