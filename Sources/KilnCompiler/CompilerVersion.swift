/// The version string recorded in every library's provenance section.
public enum CompilerVersion {
    public static let string = "kiln 0.1.0"
}
