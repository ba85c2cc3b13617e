export {};
//# sourceMappingURL=protocol.js.map