// Loaded before uPlot, which formats numbers with `new Intl.NumberFormat(navigator.language)` as it
// loads. A browser started under a POSIX locale (headless or kiosk Chromium under LANG=C.UTF-8)
// reports `en-US@posix`, which is no BCP 47 tag: that call throws and no chart is drawn. Such a
// browser gets the tag's language part, or en-US.
(() => {
  const usable = (tag) => {
    try {
      new Intl.NumberFormat(tag);
      return true;
    } catch {
      return false;
    }
  };
  if (usable(navigator.language)) return;
  const base = String(navigator.language).split(/[@.]/)[0];
  const language = usable(base) ? base : 'en-US';
  Object.defineProperty(Navigator.prototype, 'language', { get: () => language, configurable: true });
})();
