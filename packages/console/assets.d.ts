/** The directory of the built console (index.html and its assets). */
export declare const consoleDir: string;
/** Whether the console has been built (its index.html is there). */
export declare function consoleBuilt(): boolean;
