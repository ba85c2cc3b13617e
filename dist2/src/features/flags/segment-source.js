export {};
//# sourceMappingURL=segment-source.js.map