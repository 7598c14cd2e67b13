// The site's pages, in the order the navigation lists them. The build (scripts/build-web.mjs)
// writes each to dist/ under its source's file name, its <head> and <body> set into
// layout.html with the navigation, and bundles its scripts beside it. Adding a page is adding
// its folder under web/ and a line here. A link text too long for a phone's one row of links
// has a short one (shortLink), which the navigation shows instead on narrow screens.
export const PAGES = [
  { source: 'playground/index.html', link: 'Playground', scripts: ['playground/main.js', 'playground/worker.js'] },
  { source: 'lab/lab.html', link: 'Lost in the middle lab', shortLink: 'Lab', scripts: ['lab/lab.js', 'lab/lab-worker.js'] },
  { source: 'train/train.html', link: 'Train', scripts: ['train/train.js', 'train/train-worker.js'] },
];
