import { BATCH, CAPTURED, COMMIT, isCaptured, DRY_RUN, FILE_PLACEHOLDER, KEY_PLACEHOLDER, PREVIEW, SUBMIT, UPLOAD, type Operation } from '../operations';
import { jsonOf, pathParts, quoted } from './literals';
import type { LanguageExamples } from './types';

// C# has no JSON literal that both .NET Framework and .NET 6+ read: the body is the JSON text
// in a verbatim string (quotes doubled), and the commit's body is built with string.Format.
const camel = (name: string) => name.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());
const verbatim = (s: string) => `@"${s.replace(/"/g, '""')}"`;

const path = (op: Operation) => {
  const parts = pathParts(op.path);
  return parts.some((p) => typeof p !== 'string') ? `$${quoted(parts.map((p) => (typeof p === 'string' ? p : `{${camel(p.variable)}}`)).join(''))}` : quoted(op.path);
};
const names = (op: Operation) => op.reads.map(quoted).join(', ');
const method = (op: Operation) => (op.method === 'GET' ? 'HttpMethod.Get' : 'HttpMethod.Post');

/** The commit's JSON with its captured values put in: {"n_confirmed":{0},"rows_hash":"{1}"} and the arguments. */
function commitBody(): string {
  const args: string[] = [];
  const template = JSON.stringify(jsonOf(COMMIT)).replace(/"\{(\w+)\}"/g, (_m, name: string) => {
    args.push(isCaptured(name) && CAPTURED[name] === 'string' ? `"\\"" + ${camel(name)} + "\\""` : camel(name));
    return `{${args.length - 1}}`;
  });
  return `string.Format(${quoted(template.replace(/\{(?!\d)/g, '{{').replace(/(?<!\{\d)\}/g, '}}'))}, ${args.join(', ')})`;
}

const HEAD = (base: string, what: string) => `// ${what} .NET Framework 4.5+ sau .NET 6+, fără pachete:
// HttpClient trimite, cititorul JSON din System.Runtime.Serialization citește răspunsul.
using System;
using System.IO;
using System.Net.Http;
using System.Runtime.Serialization.Json;
using System.Text;
using System.Threading.Tasks;
using System.Xml;
using System.Xml.Linq;

class Program
{
    const string Base = ${quoted(base)};
    const string Key = ${quoted(KEY_PLACEHOLDER)};
    static readonly HttpClient Http = new HttpClient { Timeout = TimeSpan.FromSeconds(120) };

    /// Trimite o cerere și întoarce răspunsul JSON (ca XML); o eroare HTTP devine o excepție cu răspunsul.
    static async Task<XElement> Call(HttpMethod method, string path, HttpContent body)
    {
        var request = new HttpRequestMessage(method, Base + path) { Content = body };
        request.Headers.Add("X-API-Key", Key);
        var response = await Http.SendAsync(request);
        var bytes = await response.Content.ReadAsByteArrayAsync();
        if (!response.IsSuccessStatusCode)
            throw new Exception("HTTP " + (int)response.StatusCode + ": " + Encoding.UTF8.GetString(bytes));
        using (var reader = JsonReaderWriterFactory.CreateJsonReader(bytes, XmlDictionaryReaderQuotas.Max))
            return XElement.Load(reader);
    }

    static HttpContent Json(string json)
    {
        return new StringContent(json, Encoding.UTF8, "application/json");
    }

    /// Afișează câmpurile cerute; o listă (erori) câte un element pe linie, fără cele nule.
    static void Show(XElement answer, params string[] names)
    {
        foreach (var name in names)
        {
            var value = answer.Element(name);
            var type = value == null ? "null" : (string)value.Attribute("type");
            if (type == "null") continue;
            if (type == "array")
                foreach (var item in value.Elements("item"))
                    Console.WriteLine(name + ": " + (string)item.Element("field") + " - " + (string)item.Element("message"));
            else
                Console.WriteLine(name + ": " + value.Value);
        }
    }

    static int Main()
    {
        try
        {
            return Run().GetAwaiter().GetResult();
        }
        catch (Exception error)
        {
            Console.Error.WriteLine(error.Message);
            return 1;
        }
    }
`;

export function csharpExamples(base: string): LanguageExamples {
  const submission = `${HEAD(base, 'Prezentare prin API: dry run, apoi trimiterea.')}
    const string Prezentare = ${verbatim(JSON.stringify(jsonOf(DRY_RUN)))};

    static async Task<int> Run()
    {
        var verdict = await Call(${method(DRY_RUN)}, ${path(DRY_RUN)}, Json(Prezentare));
        Show(verdict, ${names(DRY_RUN)});
        if ((string)verdict.Element("status_estimat") != "queued") return 1;

        var rezultat = await Call(${method(SUBMIT)}, ${path(SUBMIT)}, Json(Prezentare));
        Show(rezultat, ${names(SUBMIT)});
        return 0;
    }
}
`;
  const upload = `${HEAD(base, 'Import de fișier: încărcare, previzualizare, confirmare.')}
    const string FilePath = ${quoted(FILE_PLACEHOLDER)};

    static async Task<int> Run()
    {
        var file = new ByteArrayContent(File.ReadAllBytes(FilePath));
        file.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/octet-stream");
        var form = new MultipartFormDataContent();
        form.Add(file, "file", Path.GetFileName(FilePath));
        var incarcare = await Call(${method(UPLOAD)}, ${path(UPLOAD)}, form);
        Show(incarcare, ${names(UPLOAD)});
        var batchId = (string)incarcare.Element("batch_id");

        // Fișierul se încarcă în fundal: se întreabă din nou cât timp este „queued” (în așteptare) sau „staging”.
        while ((string)incarcare.Element("status") == "queued" || (string)incarcare.Element("status") == "staging")
        {
            await Task.Delay(1000);
            incarcare = await Call(${method(BATCH)}, ${path(BATCH)}, null);
            Show(incarcare, ${names(BATCH)});
        }
        if ((string)incarcare.Element("status") != "staged")
            throw new Exception("Importul nu poate fi confirmat: " + incarcare);

        var previzualizare = await Call(${method(PREVIEW)}, ${path(PREVIEW)}, null);
        Show(previzualizare, ${names(PREVIEW)});
        var nToCommit = (string)previzualizare.Element("n_to_commit");
        var rowsHash = (string)previzualizare.Element("rows_hash");

        var confirmare = await Call(${method(COMMIT)}, ${path(COMMIT)}, Json(${commitBody()}));
        Show(confirmare, ${names(COMMIT)});
        return 0;
    }
}
`;
  return {
    language: 'csharp',
    label: 'C#',
    run: true,
    submission: { filename: 'Prezentare.cs', howToRun: 'csc Prezentare.cs (sau un proiect dotnet new console)', code: submission },
    upload: { filename: 'Import.cs', howToRun: 'csc Import.cs (sau un proiect dotnet new console)', code: upload },
  };
}
